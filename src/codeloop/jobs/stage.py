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
from codeloop.llm.base import LLM, JsonReply, MessagesLike, Reply, Usage, to_messages

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
              stop: list[str] | None = None, seed: int | None = None,
              until: Callable[[str], bool] | None = None) -> Reply: ...


@overload
def ask_model(llm: LLM, messages: MessagesLike, *, stage: str, bus: EventBus | None,
              max_tokens: int, temperature: float, schema: dict[str, Any] | type,
              usage: UsageRecord | None = None, stream: bool = False,
              stop: None = None, seed: None = None, until: None = None) -> JsonReply: ...


def ask_model(llm, messages, *, stage, bus, max_tokens, temperature, schema=None, usage=None,
              stream=False, stop=None, seed=None, until=None):
    """One model call: plain text (`schema` None), or JSON valid under `schema`; `seed`
    draws a sampled plain reply that the same call draws again. Emits
    LLMCall on `bus` (Token events too when `stream` and the reply is plain text) and adds
    the call to `usage`. `until(text so far)`, checked at each line's end of a plain reply,
    stops the model when true: the reply is what came, read as cut at the limit ("length").
    Model errors (ContextOverflow, InvalidStructuredOutput...) propagate: the caller decides
    what a failed call means."""
    seeded = {"seed": seed} if seed is not None else {}
    if schema is not None:
        result = llm.complete_json(messages, schema, max_tokens=max_tokens,
                                   temperature=temperature)
        reply = result.reply
    elif (stream or until is not None) and hasattr(llm, "stream"):
        result = reply = _streamed(llm, messages, bus if stream else None, until,
                                   max_tokens=max_tokens, temperature=temperature,
                                   stop=stop, **seeded)
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


def _streamed(llm: LLM, messages: MessagesLike, bus: EventBus | None,
              until: Callable[[str], bool] | None, **options: Any) -> Reply:
    """A plain reply, streamed: Token events on `bus`, stopped early when `until` says so
    (its usage then counted here: the prompt as the backend counts it where it can, else
    about four characters a token; a piece a token)."""
    pieces: list[str] = []
    started = time.perf_counter()
    stream = llm.stream(messages, **options)
    for piece in stream:
        if isinstance(piece, Reply):
            return piece
        pieces.append(piece)
        if bus is not None:
            bus.emit(Token(text=piece))
        if until is not None and "\n" in piece and until("".join(pieces)):
            stream.close()  # the backend stops generating
            return Reply("".join(pieces), Usage(_prompt_tokens(llm, messages), len(pieces)),
                         time.perf_counter() - started, getattr(llm, "name", ""), "length")
    raise AssertionError("a stream ends with its Reply")


def _prompt_tokens(llm: LLM, messages: MessagesLike) -> int:
    estimate = sum(len(m.content) for m in to_messages(messages)) // 4
    counter = getattr(llm, "count_prompt_tokens", None)
    try:
        return int(counter(messages)) if counter is not None else estimate
    except Exception:  # noqa: BLE001 -- an estimate is enough for the usage line
        return estimate


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
