"""One run's lifecycle in the run store: `with store.run(job, inputs) as run:`.

The block gets the run's id and an event bus the store listens to. It ends the run with
`run.finish(status, result)`. What else can happen is recorded, never lost:
- an exception inside the block finishes the run as "failed" with its message as the outcome
  (Ctrl-C as "interrupted"), then goes on up to the caller;
- a block that ends without `finish` is a bug in the job: the run is recorded as "failed"
  saying so, and UnfinishedRun is raised, so it cannot pass for a silent success.

The statuses are run_statuses.py's; `finish` also takes a job's own word ("passed") and the
store settles it to a status and an outcome there.

Every job (solve, agent, review, build, ask) and the HTTP server's worker threads open their
runs this way; a Run is used by one thread, many Runs may share one store.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, Protocol

from codeloop.events import Event, EventBus
from codeloop.run_statuses import PAUSED_STATUSES

__all__ = ["Run", "UnfinishedRun", "open_run"]


class RunStore(Protocol):
    """What a run needs of the store (store.py's RunStore; a protocol, so this module does
    not import the store that imports it)."""

    def start_run(self, job: str, inputs: dict[str, Any] | None = None) -> str: ...
    def claim_run(self, run_id: str) -> str: ...
    def finish_run(self, run_id: str, status: str, result: Any = None, *,
                   outcome: str | None = None, ended: bool = True) -> str: ...
    def __call__(self, event: Event) -> None: ...

NOT_FINISHED = "the run ended without a result: the job never called run.finish()"


class UnfinishedRun(RuntimeError):
    """A `store.run(...)` block ended without `run.finish(...)` (a bug in the job)."""



class Run:
    """A running job: its id, its event bus, and the one way to finish it."""

    def __init__(self, store: RunStore, run_id: str, bus: EventBus) -> None:
        self._store = store
        self.id = run_id
        self.bus = bus
        self._finish_lock = threading.Lock()
        self.status: str | None = None  # set once, by finish (the settled status)

    @property
    def finished(self) -> bool:
        return self.status is not None

    def finish(self, status: str, result: Any = None, outcome: str | None = None) -> None:
        """Record how the run ended: a status (or the job's own word, settled by the store)
        and the job's outcome phrase (None: the store words it from the status and result).
        A run finishes once: a second call is a bug."""
        if status in ("running", "queued") or status in PAUSED_STATUSES:
            raise ValueError(f"a run cannot finish as {status!r} (pause it instead)")
        if not self._settle(status, result, outcome=outcome):
            raise RuntimeError(f"run {self.id} is already finished ({self.status})")

    def pause(self, status: str = "awaiting_approval", result: Any = None) -> None:
        """End this block with the run waiting (for a person's approval): not finished, so
        `store.resume(run_id)` (in this process or another, hours later) can take it up."""
        if status not in PAUSED_STATUSES:
            raise ValueError(f"{status!r} is not a paused status {PAUSED_STATUSES}")
        if not self._settle(status, result, ended=False):
            raise RuntimeError(f"run {self.id} is already finished ({self.status})")

    def _settle(self, status: str, result: Any, *, outcome: str | None = None,
                ended: bool = True) -> bool:
        """Finish the run unless it is finished already; whether this call finished it."""
        with self._finish_lock:  # a job may finish from a worker thread
            if self.status is not None:
                return False
            self.status = self._store.finish_run(self.id, status, result, outcome=outcome,
                                                 ended=ended)
            return True


def _failure(exc: BaseException) -> tuple[str, dict[str, str]]:
    status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
    return status, {"error": str(exc) or type(exc).__name__}


@contextmanager
def open_run(store: RunStore, job: str, inputs: dict[str, Any] | None = None,
             bus: EventBus | None = None, *, resume_id: str | None = None) -> Iterator[Run]:
    """Start a run (or take up the paused or interrupted run `resume_id`), give it a bus the
    store listens to, and finish it whatever happens.

    `bus`: a caller's long-lived bus (an agent REPL's, whose tools were built with it) is
    lent to the run: it carries the run's id and feeds the store for the block only.
    """
    run_id = store.claim_run(resume_id) if resume_id is not None else store.start_run(job,
                                                                                         inputs)
    bus = bus if bus is not None else EventBus()
    previous_id, bus.run_id = bus.run_id, run_id
    stop_recording = bus.subscribe(store)
    run = Run(store, run_id, bus)
    try:
        yield run
    except BaseException as exc:
        with suppress(Exception):  # the store failing too must not hide the cause
            run._settle(*_failure(exc))
        raise
    finally:
        stop_recording()
        bus.run_id = previous_id
    if run._settle("failed", {"error": NOT_FINISHED}):
        raise UnfinishedRun(f"run {run_id} ({job}): {NOT_FINISHED}")
