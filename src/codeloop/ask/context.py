"""The ask job's part of the stage kit: its context (the model, the repository index, the
switches), its node wrapper, and the one way its nodes ask the model.

A model that cannot be reached (no backend, no weights) is not an error everywhere: the
reasoner falls back to simple steps and `analyze_repo` to the template report, so `ask_or_none`
returns None for it (and remembers, so no node waits on a dead backend twice). Every other
model error propagates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codeloop.ask.state import AskState
from codeloop.ask.tools.walk import RepoIndex
from codeloop.events import DebugLog, TokenUsage
from codeloop.jobs.prompts import PromptSpec, load_prompt
from codeloop.jobs.stage import StageContext, StageOutput, as_node, ask_model
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLM, BackendUnreachable, JsonReply, ModelNotAvailable, Reply

PROMPTS = "codeloop.ask"
UNREACHABLE = (BackendUnreachable, ModelNotAvailable)


class AskError(ValueError):
    """What the user asked cannot be done (no model for a type that needs one, bad input);
    the message is one line for the user."""


@dataclass(kw_only=True)
class AskContext(StageContext[str]):
    llm: LLM | None  # type: ignore[assignment]  # None: run without a model (template report)
    index: RepoIndex | None = None
    top_k: int = 6
    max_files: int = 20
    max_depth: int = 3
    max_tokens_cap: int | None = None  # the user's max_tokens setting: no reply is longer
    model_down: str = ""  # why the model could not be reached, once it could not
    run_calls: bool = True  # a call in the question runs in the sandbox (calls.py)
    def search(self):
        """The repository's BM25 index, built on first use and kept with the index."""
        from codeloop.ask.tools.retrieval import repository_search

        return repository_search(self.index) if self.index is not None else None

    def debug(self, node: str, event_type: str, content: str, *,
              usage: UsageRecord | None = None, **metadata: Any) -> None:
        tokens = TokenUsage()
        if usage is not None:
            tokens = TokenUsage(prompt_tokens=usage.prompt_tokens,
                                completion_tokens=usage.completion_tokens,
                                total_tokens=usage.total_tokens)
        self.bus.emit(DebugLog(node=node, agent="ask", event_type=event_type,  # type: ignore[arg-type]
                               content=content, metadata=metadata, token_usage=tokens))


def prompt(name: str) -> PromptSpec:
    return load_prompt(PROMPTS, name)


def ask_or_none(ctx: AskContext, usage: UsageRecord, stage: str, spec: PromptSpec,
                schema: dict[str, Any] | None = None, **variables: Any
                ) -> Reply | JsonReply | None:
    """The model's reply, or None when no model can be reached (said once in the log)."""
    if ctx.llm is None or ctx.model_down:
        return None
    messages = spec.messages(**variables)
    budget = min(spec.max_tokens, ctx.max_tokens_cap or spec.max_tokens)
    try:
        if schema is None:
            return ask_model(ctx.llm, messages, stage=stage, bus=ctx.bus, usage=usage,
                             max_tokens=budget, temperature=spec.temperature,
                             stream=ctx.stream)
        return ask_model(ctx.llm, messages, stage=stage, bus=ctx.bus, usage=usage,
                         max_tokens=budget, temperature=spec.temperature, schema=schema)
    except UNREACHABLE as exc:
        ctx.model_down = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        ctx.debug(stage, "error", f"no model reachable: {ctx.model_down}")
        return None


AskNode = Callable[[AskState, AskContext, UsageRecord], StageOutput]


def ask_node(stage: str, fn: AskNode, ctx: AskContext) -> Callable[[AskState], dict[str, Any]]:
    return as_node(stage, fn, ctx, lambda state: _detail(stage, state))


def _detail(stage: str, state: AskState) -> str:
    if stage == "planner":
        return f"iteration {state['iteration_count'] + 1} of {state['max_iterations']}"
    return state["task_type"]
