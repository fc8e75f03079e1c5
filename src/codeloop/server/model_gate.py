"""Model calls from many server runs, without touching job code.

Each server run gets a `GatedLLM`: the LLM protocol around the shared model, with two jobs:
- a local model (one llama.cpp instance in this process, not thread-safe and using every
  core) serves one call at a time: a run waiting for it shows `queued` (`RunSignals.queued`)
  until its turn. A server backend (Ollama, OpenAI-compatible) takes calls in parallel;
- a cancelled run (`DELETE /api/runs/{id}`) gets `Cancelled`, an LLMError, at its next model
  call (or while it waits in the queue), so every job stops between model calls the way it
  stops on any model failure: recorded, never half-written mid-call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from codeloop.llm.base import LLM, JsonReply, LLMError, MessagesLike, Reply, forget_prompt_cache

# How often a queued call looks at its run's cancel flag while it waits for the model.
_WAIT_SLICE = 0.1


class Cancelled(LLMError):
    """The run was cancelled (DELETE /api/runs/{id}): no more model calls for it."""


class RunSignals:
    """What the server knows about one live run and the run's model calls share: whether it
    was cancelled, and whether it is waiting for the model right now."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.fired = False  # a model call was refused: the job stopped because of the cancel
        self._queued = 0
        self._lock = threading.Lock()

    @property
    def queued(self) -> bool:
        with self._lock:
            return self._queued > 0

    def _waiting(self, delta: int) -> None:
        with self._lock:
            self._queued += delta

    def check(self) -> None:
        if self.cancelled.is_set():
            self.fired = True
            raise Cancelled("the run was cancelled: no more model calls")


class ModelGate:
    """One per model instance: serial (a lock, first come first served) or open."""

    def __init__(self, serial: bool) -> None:
        self.serial = serial
        self._lock = threading.Lock()

    def hold(self, signals: RunSignals) -> _Turn:
        return _Turn(self, signals)


class _Turn:
    """`with gate.hold(signals):` one model call's turn; Cancelled if the run is cancelled
    before (or while waiting for) its turn."""

    def __init__(self, gate: ModelGate, signals: RunSignals) -> None:
        self.gate, self.signals, self._held = gate, signals, False

    def __enter__(self) -> None:
        self.signals.check()
        if not self.gate.serial:
            return
        if not self.gate._lock.acquire(blocking=False):
            self.signals._waiting(+1)
            try:
                while not self.gate._lock.acquire(timeout=_WAIT_SLICE):
                    self.signals.check()
            finally:
                self.signals._waiting(-1)
        self._held = True
        try:
            self.signals.check()  # cancelled while it waited: give the model to the next
        except Cancelled:
            self._release()
            raise

    def _release(self) -> None:
        if self._held:
            self._held = False
            self.gate._lock.release()

    def __exit__(self, *exc: object) -> None:
        self._release()


class GatedLLM:
    """The LLM protocol for one run: every call takes its turn at the gate first. The model
    is loaded at the first call (`load`), inside the run: loading a local model takes
    seconds, and a request that starts a run should not wait for it."""

    def __init__(self, load: Callable[[], LLM], name: str, gate: ModelGate,
                 signals: RunSignals) -> None:
        self._load, self.name, self.gate, self.signals = load, name, gate, signals
        self._inner: LLM | None = None
        self._load_lock = threading.Lock()

    @property
    def inner(self) -> LLM:
        with self._load_lock:
            if self._inner is None:
                self._inner = self._load()  # LLMError (a missing model): the run records it
            return self._inner

    def complete(self, messages: MessagesLike, **kwargs: Any) -> Reply:
        with self.gate.hold(self.signals):
            return self.inner.complete(messages, **kwargs)

    def complete_json(self, messages: MessagesLike, schema: dict[str, Any] | type,
                      **kwargs: Any) -> JsonReply:
        with self.gate.hold(self.signals):
            return self.inner.complete_json(messages, schema, **kwargs)

    def stream(self, messages: MessagesLike, **kwargs: Any) -> Iterator[str | Reply]:
        # The turn lasts until the stream is consumed (or closed): one model, one stream.
        with self.gate.hold(self.signals):
            yield from self.inner.stream(messages, **kwargs)

    def forget_prompt_cache(self) -> None:
        # A model not loaded yet has cached nothing; loading it here would be too early.
        if self._inner is not None:
            with self.gate.hold(self.signals):
                forget_prompt_cache(self._inner)

    def __getattr__(self, name: str) -> Any:
        # Backend attributes some callers read (calls_real_model, address, remaining).
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)
