"""What a build's units share in this process and cannot be serialised: the models, the event
bus, the clock's sleep (injectable: tests never wait on a backoff), the stop flag.

The units themselves get plain data (TaskUnit); a remote executor would rebuild a runtime
from the model spec on its worker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from codeloop.events import EventBus
from codeloop.jobs.react.state import AgentLimits
from codeloop.llm.base import LLM


@dataclass
class BuildRuntime:
    llm_for: Callable[[str], LLM]  # agent key ("scaffold", "task:T1", "merge", "integration")
    bus: EventBus = field(default_factory=EventBus)
    sleep: Callable[[float], None] = time.sleep
    unsafe_no_sandbox: bool = False
    agent_limits: AgentLimits = field(default_factory=lambda: AgentLimits(max_steps=14))
    stop: threading.Event = field(default_factory=threading.Event)


def single_model(llm: LLM) -> Callable[[str], LLM]:
    """Every agent on one model (a local model serialises its calls with its own lock)."""
    return lambda _key: llm
