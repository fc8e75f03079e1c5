"""What every stage of every job shares: its dependencies, model calls with events, and
stage events.

A stage is a function `(state, ctx, usage) -> StageOutput`; `as_node` turns it into a graph
node that emits StageStart/StageEnd and adds the stage's usage to the state's `usage` list.
Every model call of every job goes through `ask_model`, which emits the LLMCall event (and
Token events when streaming) and counts the call.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

from codeloop.events import EventBus, LLMCall, StageEnd, StageStart, Token
from codeloop.jobs.prompts import PromptSpec
from codeloop.jobs.usage import UsageRecord, stage_entry
from codeloop.llm.base import LLM, JsonReply, MessagesLike, Reply

TaskT = TypeVar("TaskT")
StateT = TypeVar("StateT", bound=Mapping[str, Any])
CtxT = TypeVar("CtxT", bound="StageContext[Any]")


@dataclass(kw_only=True)
class StageContext(Generic[TaskT]):
    """A run's dependencies, bound to every node (they are not state: not data). A job adds
    its own settings in a subclass."""

    llm: LLM
    task: TaskT
    bus: EventBus = field(default_factory=EventBus)
    stream: bool = False  # emit Token events while the model writes
    # Set: the run's sampled calls draw the same replies again (a repeatable run); the
    # n-th call's seed is derived from this and n, so two calls never share a seed.
    seed: int | None = None
    calls_made: int = field(default=0, init=False)

    def ask(self, usage: UsageRecord, stage: str, messages: MessagesLike,
            spec: PromptSpec, stop: list[str] | None = None) -> Reply:
        """One plain model call at the prompt file's budget and temperature; the reply ends
        before the first of `stop` the model writes."""
        self.calls_made += 1
        return ask_model(self.llm, messages, stage=stage, bus=self.bus, usage=usage,
                         max_tokens=spec.max_tokens, temperature=spec.temperature,
                         stream=self.stream, stop=stop,
                         seed=call_seed(self.seed, self.calls_made, spec.temperature))


def call_seed(run_seed: int | None, call: int, temperature: float) -> int | None:
    """The seed of a run's `call`-th model call: none for a greedy call (its reply does
    not depend on one, and the draft stays the one-shot call byte for byte)."""
    if run_seed is None or temperature == 0.0:
        return None
    return zlib.crc32(f"{run_seed}:{call}".encode())


@dataclass
class StageOutput:
    update: dict[str, Any]
    shown: str  # what the live view and the run store show as the stage's output
    ok: bool = True


@overload
def ask_model(llm: LLM, messages: MessagesLike, *, stage: str, bus: EventBus | None,
              max_tokens: int, temperature: float, schema: None = None,
              usage: UsageRecord | None = None, stream: bool = False,
              stop: list[str] | None = None, seed: int | None = None) -> Reply: ...


@overload
def ask_model(llm: LLM, messages: MessagesLike, *, stage: str, bus: EventBus | None,
              max_tokens: int, temperature: float, schema: dict[str, Any] | type,
              usage: UsageRecord | None = None, stream: bool = False,
              stop: None = None, seed: None = None) -> JsonReply: ...


def ask_model(llm, messages, *, stage, bus, max_tokens, temperature, schema=None, usage=None,
              stream=False, stop=None, seed=None):
    """One model call: plain text (`schema` None), or JSON valid under `schema`; `seed`
    draws a sampled plain reply that the same call draws again. Emits
    LLMCall on `bus` (Token events too when `stream` and the reply is plain text) and adds
    the call to `usage`. Model errors (ContextOverflow, InvalidStructuredOutput...) propagate:
    the caller decides what a failed call means."""
    seeded = {"seed": seed} if seed is not None else {}
    if schema is not None:
        result = llm.complete_json(messages, schema, max_tokens=max_tokens,
                                   temperature=temperature)
        reply = result.reply
    elif stream and hasattr(llm, "stream"):
        reply = None
        for piece in llm.stream(messages, max_tokens=max_tokens, temperature=temperature,
                                stop=stop, **seeded):
            if isinstance(piece, Reply):
                reply = piece
            elif bus is not None:
                bus.emit(Token(text=piece))
        assert reply is not None, "a stream ends with its Reply"
        result = reply
    else:
        result = reply = llm.complete(messages, max_tokens=max_tokens, temperature=temperature,
                                      stop=stop, **seeded)
    if usage is not None:
        usage.add(reply)
    if bus is not None:
        bus.emit(LLMCall(model=reply.model, stage=stage,
                         prompt_tokens=reply.usage.prompt_tokens,
                         completion_tokens=reply.usage.completion_tokens,
                         seconds=round(reply.seconds, 3)))
    return result


def as_node(stage: str, fn: Callable[[StateT, CtxT, UsageRecord], StageOutput], ctx: CtxT,
            detail: Callable[[StateT], str]) -> Callable[[StateT], dict[str, Any]]:
    """`fn` as a graph node: StageStart (with `detail(state)`), the stage, StageEnd, and the
    stage's usage (its model calls, its wall-clock seconds) appended to `usage`."""
    def node(state: StateT) -> dict[str, Any]:
        ctx.bus.emit(StageStart(stage=stage, detail=detail(state)))
        started = time.perf_counter()
        usage = UsageRecord()
        out = fn(state, ctx, usage)
        seconds = time.perf_counter() - started
        ctx.bus.emit(StageEnd(stage=stage, seconds=round(seconds, 3), output=out.shown, ok=out.ok))
        return {**out.update, "usage": [stage_entry(stage, usage, seconds)]}

    node.__name__ = stage
    return node
