"""What every stage shares: its dependencies, model calls with events, and stage events.

A stage is a function `(state, ctx, log) -> StageOutput`; `as_node` turns it into a graph
node that emits StageStart/StageEnd and records the stage's usage in the state.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codeloop.events import EventBus, LLMCall, StageEnd, StageStart, Token
from codeloop.llm.base import LLM, CallLog, Message, Reply
from codeloop.pipeline.extract import contains_code, strip_code
from codeloop.pipeline.prompts_loader import PromptSpec
from codeloop.pipeline.state import SolveState, StageUsage
from codeloop.pipeline.tasks import Task


@dataclass
class StageContext:
    """The run's dependencies, bound to every node (they are not state: not data)."""

    llm: LLM
    task: Task
    assertions: list[str]
    bus: EventBus = field(default_factory=EventBus)
    test_source: str | None = None  # the external test file, narrowed to this task
    stream: bool = False  # emit Token events while the model writes
    plan_in_generation: bool = True  # False: generation gets the plain one-shot prompt
    draft_first: bool = True  # generation drafts first; analysis and planning only if it fails
    sandbox_timeout: float = 10.0


@dataclass
class StageOutput:
    update: dict[str, Any]
    shown: str  # what the live view and the run store show as the stage's output
    ok: bool = True


def ask_model(ctx: StageContext, log: CallLog, stage: str, messages: list[Message],
              spec: PromptSpec) -> Reply:
    """One model call at the prompt file's budget and temperature; emits LLMCall (and Token
    when streaming)."""
    kwargs: dict[str, Any] = {"max_tokens": spec.max_tokens, "temperature": spec.temperature}
    if ctx.stream and hasattr(ctx.llm, "stream"):
        reply = None
        for piece in ctx.llm.stream(messages, **kwargs):
            if isinstance(piece, Reply):
                reply = piece
            else:
                ctx.bus.emit(Token(text=piece))
        assert reply is not None, "a stream ends with its Reply"
    else:
        reply = ctx.llm.complete(messages, **kwargs)
    log.add(reply)
    ctx.bus.emit(LLMCall(model=reply.model, stage=stage,
                         prompt_tokens=reply.usage.prompt_tokens,
                         completion_tokens=reply.usage.completion_tokens,
                         seconds=round(reply.seconds, 3)))
    return reply


def ask_prose(ctx: StageContext, log: CallLog, stage: str, spec: PromptSpec,
              **variables: Any) -> tuple[str, bool]:
    """A no-code answer: a reply with code is asked for once more with the spec's retry
    note; code still left after that is stripped. Returns (text, asked_twice)."""
    messages = spec.messages(**variables)
    text = ask_model(ctx, log, stage, messages, spec).text.strip()
    if not contains_code(text):
        return text, False
    retry = [*messages[:-1], Message("user", f"{messages[-1].content}\n\n{spec.retry_note.strip()}")]
    text = ask_model(ctx, log, stage, retry, spec).text.strip()
    return (strip_code(text) if contains_code(text) else text), True


def as_node(stage: str, fn: Callable[[SolveState, StageContext, CallLog], StageOutput],
            ctx: StageContext) -> Callable[[SolveState], dict[str, Any]]:
    def node(state: SolveState) -> dict[str, Any]:
        ctx.bus.emit(StageStart(stage=stage, detail=_detail(stage, state)))
        started = time.perf_counter()
        log = CallLog()
        out = fn(state, ctx, log)
        seconds = time.perf_counter() - started
        ctx.bus.emit(StageEnd(stage=stage, seconds=round(seconds, 3), output=out.shown, ok=out.ok))
        usage = StageUsage(stage=stage, calls=log.calls, prompt_tokens=log.usage.prompt_tokens,
                           completion_tokens=log.usage.completion_tokens,
                           seconds=round(seconds, 3))
        return {**out.update, "usage": [usage]}

    node.__name__ = stage
    return node


def _detail(stage: str, state: SolveState) -> str:
    if stage == "refinement":
        return f"round {state['refinement_count'] + 1} of {state['max_refinements']}"
    if stage == "review" and state["refinement_count"]:
        return f"after refinement round {state['refinement_count']}"
    if stage == "generation":
        return "draft from the task alone" if not state["attempts"] and not state["plan"] \
            else "following the plan"
    return state["task_id"]


def clip(text: str, limit: int) -> str:
    """Keep later prompts short: at most `limit` characters, cut at a line end."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[: cut.rfind("\n")] if "\n" in cut else cut
