"""reflector: `generate`, `continue` (read the files the reasoning named) or `retry` (ask the
reasoner again), each decision a reflection note. By rules, not a model call: each of the
three decisions has a checkable reason, and a small model asked "is this enough?" says yes.

In order: the iteration cap reached -> generate; the reasoner fell back to simple steps, the
model is reachable and no retry was spent -> retry; the task or the steps name repository
files nobody has read -> continue; otherwise -> generate.
"""

from __future__ import annotations

from typing import Literal

from codeloop.ask.context import AskContext
from codeloop.ask.repo_analyzer import unread_mentions
from codeloop.ask.state import AskState, Decision, ReflectionNote, latest_steps
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord

MAX_RETRIES = 1


def reflect(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    decision, reason = decide(state, ctx)
    note = ReflectionNote(iteration=state["iteration_count"], decision=decision, reason=reason)
    update: dict = {"reflection_notes": [note]}
    if decision == "retry":
        update["retries"] = state["retries"] + 1
    ctx.debug("reflector", "thinking", f"{decision}: {reason}")
    return StageOutput(update, f"{decision}: {reason}")


def decide(state: AskState, ctx: AskContext) -> tuple[Decision, str]:
    if state["iteration_count"] >= state["max_iterations"]:
        return "generate", f"the iteration cap ({state['max_iterations']}) is reached"
    model_up = ctx.llm is not None and not ctx.model_down
    if state["reasoning_fallback"] and model_up and state["retries"] < MAX_RETRIES:
        return "retry", "the reasoning fell back to simple steps; asking once more"
    unread = unread_mentions(state, ctx)
    if unread:
        return "continue", "read the files the reasoning names: " + ", ".join(unread[:4])
    evidence = len(state["retrieved"]) + len(state["code_files"])
    what = f"{evidence} pieces of code read" if state["repo"] else "no repository needed"
    steps = latest_steps(state["reasoning_steps"])
    return "generate", f"{len(steps)} reasoning steps, {what}"


def after_reflection(state: AskState) -> Literal["generator", "planner"]:
    return "generator" if state["reflection_notes"][-1]["decision"] == "generate" else "planner"
