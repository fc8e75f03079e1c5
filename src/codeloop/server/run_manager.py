"""The server's live runs: one worker per run (on the kit's executor), through `store.run` or
a job's service.

A request is checked first (job_runners.py turns it into a `Launch`: the validated inputs
and the function that runs the job), then a worker thread starts it and the request returns
the run id as soon as the run exists in the store. While the run lives, its `RunSignals`
(model_gate.py) say whether it is queued for the model and let `cancel` stop it at its next
model call. What the run emits reaches the store first (the store is subscribed to the run's
bus before anyone else), then wakes the streams watching it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from codeloop.events import Error, Event
from codeloop.jobs.executor import local_executor
from codeloop.server.feed import Notifier
from codeloop.server.model_gate import RunSignals
from codeloop.store import PAUSED_STATUSES, RESUMABLE_STATUSES, RunStore

log = logging.getLogger("codeloop.server")

# How long a request waits for its worker to open the run (the store insert is quick; a
# model that must be loaded first is loaded before the thread starts).
_START_WAIT = 30.0
CANCELLED = "cancelled"


class TooManyRuns(Exception):
    """More live runs than the server takes at once (HTTP 429)."""


class RunConflict(Exception):
    """The run is not in a state that allows this (HTTP 409)."""


class RunNotFound(Exception):
    """No such run (HTTP 404)."""


class StartFailed(Exception):
    """The job failed before its run existed (HTTP 400: its one line says why)."""


@dataclass
class RunHandle:
    """One live run in this process, as its worker thread and the API see it."""

    job: str
    notifier: Notifier
    signals: RunSignals = field(default_factory=RunSignals)
    run_id: str | None = None
    ready: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    failure: str | None = None
    on_started: Callable[[RunHandle], None] | None = None

    def started(self, run_id: str) -> None:
        """The worker calls this as soon as the store has the run (store.run / on_run_id)."""
        self.run_id = run_id
        if self.on_started is not None:
            self.on_started(self)
        self.ready.set()

    def listen(self, event: Event) -> None:
        """Subscribed to the run's bus after the store: the event is stored, wake streams."""
        self.notifier.notify(event.run_id or self.run_id)


@dataclass(frozen=True)
class Launch:
    """A checked request: the job's name and the function a worker thread runs it with."""

    job: str
    work: Callable[[RunHandle], None]
    run_id: str | None = None  # set when the launch continues an existing run (approve)


class RunManager:
    def __init__(self, store: RunStore, notifier: Notifier, *, max_live: int = 32) -> None:
        self.store, self.notifier, self.max_live = store, notifier, max_live
        self._live: dict[str, RunHandle] = {}
        self._starting = 0
        self._shutting_down = False
        self._lock = threading.Lock()
        # Principle 14's one executor; as wide as the live-run cap, so a run never waits in
        # it (beyond the cap a request gets 429 instead).
        self._executor = local_executor(max_live)

    # ------------------------------------------------------------------ queries
    def handle(self, run_id: str) -> RunHandle | None:
        with self._lock:
            return self._live.get(run_id)

    def is_live(self, run_id: str) -> bool:
        return self.handle(run_id) is not None

    def live_status(self, run_id: str, stored: str) -> str:
        """The status to show: `queued` while a live run waits for the model."""
        handle = self.handle(run_id)
        if handle is not None and stored == "running" and handle.signals.queued:
            return "queued"
        return stored

    def current_status(self, run_id: str) -> str:
        """The status an answer gives for a run it just started or took up: the stored one
        as `live_status` shows it. A run still stored as waiting or interrupted that a
        worker of this server holds is being taken up (its worker claims it): running."""
        record = self.store.get_run(run_id)
        stored = record.status if record is not None else "running"
        if stored in RESUMABLE_STATUSES and self.is_live(run_id):
            stored = "running"
        return self.live_status(run_id, stored)

    # ------------------------------------------------------------------ starting
    def start(self, launch: Launch) -> str:
        """Run `launch` in a worker thread; its run id once the run exists."""
        with self._lock:
            if len(self._live) + self._starting >= self.max_live:
                raise TooManyRuns(f"{self.max_live} runs are live on this server already; "
                                  "retry when one has finished")
            if launch.run_id is not None:
                if launch.run_id in self._live:
                    raise RunConflict(f"run {launch.run_id} is being worked on already")
                # Taken before the thread starts: a second approve in this process gets 409.
                self._live[launch.run_id] = RunHandle(launch.job, self.notifier)
            self._starting += 1
        handle = self._live.get(launch.run_id) if launch.run_id else None
        handle = handle or RunHandle(launch.job, self.notifier)
        handle.on_started = self._register
        self._executor.submit(self._work, launch, handle)
        handle.ready.wait(_START_WAIT)
        with self._lock:
            self._starting -= 1
        if handle.run_id is None:
            if launch.run_id is not None and handle.done.is_set():
                self._forget(launch.run_id, handle)
            raise StartFailed(handle.failure or "the run did not start in time")
        return handle.run_id

    def _register(self, handle: RunHandle) -> None:
        with self._lock:
            self._live[handle.run_id] = handle

    def _forget(self, run_id: str | None, handle: RunHandle) -> None:
        with self._lock:
            if run_id is not None and self._live.get(run_id) is handle:
                del self._live[run_id]

    def _work(self, launch: Launch, handle: RunHandle) -> None:
        try:
            launch.work(handle)
        except Exception as exc:  # noqa: BLE001 - recorded by the run, reported here
            handle.failure = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if handle.run_id is None and launch.run_id is None:
                log.info("a %s run failed before it started: %s", launch.job, handle.failure)
            else:
                log.info("run %s (%s) failed: %s", handle.run_id, launch.job, handle.failure)
        finally:
            run_id = handle.run_id or launch.run_id
            if handle.signals.fired and run_id is not None:
                if self._shutting_down:  # a restart: the run can be resumed later
                    self._record_stopped(run_id, "interrupted", "the server stopped")
                else:
                    self._record_stopped(run_id, CANCELLED, "cancelled through the API")
            handle.done.set()
            handle.ready.set()
            self._forget(run_id, handle)
            self.notifier.notify(run_id)

    # ------------------------------------------------------------------ cancelling
    def cancel(self, run_id: str) -> str:
        """Cancel a live run (it stops at its next model call) or a waiting one (now)."""
        handle = self.handle(run_id)
        if handle is not None:
            handle.signals.cancelled.set()
            return "cancelling"
        record = self.store.get_run(run_id)
        if record is None:
            raise RunNotFound(f"no run {run_id!r}")
        if record.status not in (*PAUSED_STATUSES, "interrupted"):
            raise RunConflict(f"run {run_id} is {record.status}: only a live, waiting or "
                              "interrupted run can be cancelled")
        from codeloop.store import RunNotResumable

        try:  # one claim wins: a concurrent approve (here or in another process) or cancel
            self.store.claim_run(run_id)
        except RunNotResumable as exc:
            raise RunConflict(str(exc)) from None
        self._record_stopped(run_id, CANCELLED, "cancelled through the API")
        self.notifier.notify(run_id)
        return CANCELLED

    def _record_stopped(self, run_id: str, status: str, why: str) -> None:
        """The run's end as the server saw it (its result, if the job left one, is kept)."""
        record = self.store.get_run(run_id)
        self.store.record_event(Error(run_id=run_id, message=why, where="server"))
        self.store.finish_run(run_id, status, record.result if record else None)

    def shutdown(self, wait: float = 5.0) -> None:
        """Stop every live run at its next model call, recorded as interrupted (resumable
        after the restart), and give the workers `wait` seconds to stop."""
        self._shutting_down = True
        with self._lock:
            handles = list(self._live.values())
        for handle in handles:
            handle.signals.cancelled.set()
        deadline = time.monotonic() + wait
        for handle in handles:
            handle.done.wait(max(0.0, deadline - time.monotonic()))
        self._executor.shutdown(wait=False)
