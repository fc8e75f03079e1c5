"""The review run's dependencies (not state), and the node wrapper every review node uses:
the kit's stage events and usage (jobs/stage.as_node) plus the node's debug trail."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codeloop.events import EventBus
from codeloop.jobs.prompts import PromptSpec, load_prompt
from codeloop.jobs.stage import StageContext, StageOutput, as_node, ask_model
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import Reply, Usage
from codeloop.review.debug import DebugTrail
from codeloop.review.state import ReviewState

PROMPTS = "codeloop.review"


def prompt(name: str) -> PromptSpec:
    return load_prompt(PROMPTS, name)


def workspace_guard(state: ReviewState, *, pinned: bool = False):
    """The path guard on the run's workspace, pinned to the directory the run started in
    (its recorded st_dev/st_ino): a workspace moved, or swapped for a symlink, while the run
    waited is refused, never followed. `pinned`: refuse a run that recorded no identity (one
    started by an older codeloop) instead of going on unpinned; the write needs it."""
    from codeloop.sandbox.pathguard import PathGuard, WorkspaceReplaced

    identity = state.get("workspace_id") or None
    if identity is None and pinned:
        raise WorkspaceReplaced(state["workspace"], "the run recorded no identity of its "
                                "workspace (started by an older codeloop): run the review "
                                "again")
    return PathGuard(state["workspace"], identity=tuple(identity) if identity else None)


@dataclass(kw_only=True)
class ReviewContext(StageContext[None]):
    sandbox_timeout: float = 30.0  # the workspace's test run
    unsafe_no_sandbox: bool = False  # the command's setting, passed down (never re-read)

    @classmethod
    def from_settings(cls, llm, bus: EventBus, settings: Any = None) -> ReviewContext:
        timeout = float(getattr(settings, "sandbox_timeout", 0) or 0)
        return cls(llm=llm, task=None, bus=bus,
                   sandbox_timeout=max(timeout, 30.0),  # a test suite, not one function
                   unsafe_no_sandbox=bool(getattr(settings, "unsafe_no_sandbox", False)))

    def ask_logged(self, usage: UsageRecord, trail: DebugTrail, stage: str, spec: PromptSpec,
                   messages: list, schema: dict | None = None,
                   temperature: float | None = None):
        """One model call with its prompt and result in the debug trail, tokens counted."""
        temperature = spec.temperature if temperature is None else temperature
        trail.log("prompt", messages[-1].content, {"prompt": spec.name,
                                                   "temperature": temperature})
        result = ask_model(self.llm, messages, stage=stage, bus=self.bus, usage=usage,
                           max_tokens=spec.max_tokens, temperature=temperature,
                           schema=schema)
        reply: Reply = result if isinstance(result, Reply) else result.reply
        trail.log("result", reply.text, {"prompt": spec.name, "seconds": round(reply.seconds, 3)},
                  reply.usage)
        return result


ReviewStage = Callable[[ReviewState, ReviewContext, UsageRecord, DebugTrail], StageOutput]


def review_node(name: str, fn: ReviewStage, ctx: ReviewContext,
                detail: Callable[[ReviewState], str] | None = None):
    """`fn` as a graph node: stage events and usage (as_node), its debug trail in the state,
    and a closing DebugLog with what the node did and its tokens."""
    def stage(state: ReviewState, ctx: ReviewContext, usage: UsageRecord) -> StageOutput:
        trail = DebugTrail(ctx.bus, name)
        out = fn(state, ctx, usage, trail)
        trail.log("result" if out.ok else "error", out.shown, {"calls": usage.calls},
                  Usage(usage.prompt_tokens, usage.completion_tokens))
        out.update["debug_logs"] = [*out.update.get("debug_logs", []), *trail.entries]
        return out

    return as_node(name, stage, ctx, detail or (lambda state: state["workflow_type"]))
