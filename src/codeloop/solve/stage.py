"""Solve's part of the stage kit (jobs/stage.py): its context, its node wrapper with the
live view's stage details, and the prose-only ask of analysis and planning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codeloop.jobs.prompts import PromptSpec
from codeloop.jobs.stage import StageContext, StageOutput, as_node
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import Message
from codeloop.solve.extract import contains_code, strip_code
from codeloop.solve.state import SolveState
from codeloop.solve.tasks import Task

PROMPTS = "codeloop.solve"  # the package whose prompts/ folder holds solve's prompts


@dataclass(kw_only=True)
class SolveContext(StageContext[Task]):
    """Solve's dependencies and switches, bound to every node."""

    assertions: list[str]
    test_source: str | None = None  # the external test file, narrowed to this task
    plan_in_generation: bool = True  # False: generation gets the plain one-shot prompt
    draft_first: bool = True  # generation drafts first; analysis and planning only if it fails
    sandbox_timeout: float = 10.0
    unsafe_no_sandbox: bool = False  # the command's setting, passed down (never re-read)


SolveStage = Callable[[SolveState, SolveContext, UsageRecord], StageOutput]


def solve_node(stage: str, fn: SolveStage, ctx: SolveContext
               ) -> Callable[[SolveState], dict[str, Any]]:
    return as_node(stage, fn, ctx, lambda state: _detail(stage, state))


def ask_prose(ctx: SolveContext, usage: UsageRecord, stage: str, spec: PromptSpec,
              **variables: Any) -> tuple[str, bool]:
    """A no-code answer: a reply with code is asked for once more with the spec's retry
    note; code still left after that is stripped. Returns (text, asked_twice)."""
    messages = spec.messages(**variables)
    text = ctx.ask(usage, stage, messages, spec).text.strip()
    if not contains_code(text):
        return text, False
    retry = [*messages[:-1], Message("user", f"{messages[-1].content}\n\n{spec.retry_note.strip()}")]
    text = ctx.ask(usage, stage, retry, spec).text.strip()
    return (strip_code(text) if contains_code(text) else text), True


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
