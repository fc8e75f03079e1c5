"""What a build's units share in this process and cannot be serialised: the models, the event
bus, the clock's sleep (injectable: tests never wait on a backoff), the stop flag (set on
Ctrl-C/SIGTERM: a task agent's next model call and a backoff end at once).

The units themselves get plain data (TaskUnit); a remote executor would rebuild a runtime
from the model spec on its worker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from codeloop.events import EventBus
from codeloop.jobs.react.state import AgentLimits
from codeloop.llm.base import LLM


class BuildStopped(Exception):
    """The build was stopped (Ctrl-C, SIGTERM, too many failed tasks) while a task agent
    worked in a worker thread: its next model call raises this, so the task ends there
    instead of finishing its attempt. Not an LLMError: no agent handler of one failed call
    takes it for a model error and goes on."""


@dataclass
class BuildRuntime:
    llm_for: Callable[[str], LLM]  # agent key ("scaffold", "task:T1", "merge", "integration")
    bus: EventBus = field(default_factory=EventBus)
    # A backoff's wait; the default ends at once when the build is stopped.
    sleep: Callable[[float], object] | None = None
    unsafe_no_sandbox: bool = False
    agent_limits: AgentLimits = field(default_factory=lambda: AgentLimits(max_steps=14))
    stop: threading.Event = field(default_factory=threading.Event)
    # Test repair rounds of this build whose model left the test file as it was: after one,
    # the build's later tasks skip the round (task_attempt.py)
    test_repairs_unchanged: int = 0
    # The tasks merged into main so far, as the build goes: a retry starts from main as it is
    # now, and its contract must say so (task_agent.py)
    merged_now: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.sleep is None:
            self.sleep = self.stop.wait

    def stoppable(self, llm: LLM) -> LLM:
        """`llm` for a worker thread: each call first checks that the build goes on."""
        return _StopGate(llm, self.stop)


class _StopGate:
    """An LLM that raises BuildStopped instead of calling the model once `stop` is set (a
    call already in flight ends as it would). Everything else is the model's own."""

    def __init__(self, llm: LLM, stop: threading.Event) -> None:
        self._llm, self._stop = llm, stop

    def _check(self) -> None:
        if self._stop.is_set():
            raise BuildStopped("the build was stopped")

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return self._llm.complete(*args, **kwargs)

    def complete_json(self, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return self._llm.complete_json(*args, **kwargs)

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        self._check()
        yield from self._llm.stream(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # name, forget_prompt_cache, a script's calls
        return getattr(self._llm, name)


def single_model(llm: LLM) -> Callable[[str], LLM]:
    """Every agent on one model (a local model serialises its calls with its own lock)."""
    return lambda _key: llm
