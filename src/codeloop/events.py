"""One typed event stream: every job emits, every front end (CLI, store, API) consumes.

Events are pydantic models with a `type` discriminator so they serialise to JSON for the
run store and SSE, and parse back into the same classes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class _Event(BaseModel):
    ts: float = Field(default_factory=time.time)
    run_id: str | None = None


class StageStart(_Event):
    type: Literal["stage_start"] = "stage_start"
    stage: str
    detail: str = ""


class StageEnd(_Event):
    type: Literal["stage_end"] = "stage_end"
    stage: str
    seconds: float = 0.0
    output: str = ""
    ok: bool = True


class LLMCall(_Event):
    type: Literal["llm_call"] = "llm_call"
    model: str
    stage: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


class ToolCall(_Event):
    type: Literal["tool_call"] = "tool_call"
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: str = ""
    ok: bool = True
    seconds: float = 0.0


class TestResult(_Event):
    __test__ = False  # not a pytest test class, despite the name

    type: Literal["test_result"] = "test_result"
    passed: int
    failed: int
    errors: int = 0
    details: list[str] = Field(default_factory=list)


class Diff(_Event):
    type: Literal["diff"] = "diff"
    path: str
    diff: str


class ApprovalRequest(_Event):
    type: Literal["approval_request"] = "approval_request"
    subject: str
    detail: str = ""


class Progress(_Event):
    type: Literal["progress"] = "progress"
    done: int
    total: int
    message: str = ""


class Error(_Event):
    type: Literal["error"] = "error"
    message: str
    where: str = ""


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class DebugLog(_Event):
    """One line of a node's debug log (the review and build jobs' DebugPanel): what the node
    thought, called, prompted, got, or failed at, with the tokens it cost."""

    type: Literal["debug_log"] = "debug_log"
    node: str
    agent: str = ""
    event_type: Literal["thinking", "tool_call", "prompt", "result", "error"]
    content: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    token_usage: TokenUsage = Field(default_factory=TokenUsage)


class Token(_Event):
    """A streamed piece of model output (front ends may show it live; the store skips it)."""

    type: Literal["token"] = "token"
    text: str


Event = Annotated[
    StageStart | StageEnd | LLMCall | ToolCall | TestResult | Diff | ApprovalRequest | Progress | Error | DebugLog | Token,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: dict[str, Any] | str) -> Event:
    if isinstance(data, str):
        return EVENT_ADAPTER.validate_json(data)
    return EVENT_ADAPTER.validate_python(data)


def redacted(event: Event) -> Event:
    """A copy of `event` with the secrets in its text replaced by markers (what the run
    store keeps: a token a tool read must not persist in the user's store)."""
    from codeloop.redaction import redact_value

    return parse_event(redact_value(event.model_dump()))


Listener = Callable[[Event], None]


class EventBus:
    """Fan-out of events to listeners. A failing listener never breaks the job that emits."""

    def __init__(self, run_id: str | None = None) -> None:
        self.run_id = run_id
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: Event) -> None:
        if event.run_id is None and self.run_id is not None:
            event.run_id = self.run_id
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # noqa: BLE001, S110 - a front end's bug must not kill the job
                pass


class EventRecorder:
    """A listener that keeps every event; tests and reports read it."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of_type(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.type == kind]
