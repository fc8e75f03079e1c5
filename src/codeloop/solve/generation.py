"""Stage 3, generation: the function, from the task and, once there is one, the short plan.

The prompt is the EvalPlus instruct prompt plus the plan. With `draft_first` (the default)
generation runs first of all, from the task alone: the draft is what the plain prompt gives,
and analysis and planning run only when review finds it wrong. A reply without usable code
leaves `candidate` as None: review counts it as a failed generation."""

from __future__ import annotations

from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.stage import PROMPTS, SolveContext, ask_code, clip
from codeloop.solve.state import SolveState, Strategy

PLAN_CHARS = 900


def is_draft(state: SolveState, ctx: SolveContext) -> bool:
    return ctx.draft_first and not state["attempts"]


def generate(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    spec = load_prompt(PROMPTS, "generation")
    shown_plan = clip(state["plan"], PLAN_CHARS) if ctx.plan_in_generation else ""
    strategy: Strategy = "draft" if is_draft(state, ctx) else "generation"
    messages = spec.messages(source=ctx.task.prompt_source(),
                             plan="" if strategy == "draft" else shown_plan)
    reply, code = ask_code(ctx, usage, "generation", messages, spec,
                           end_at_block=strategy != "draft")
    shown = code if code is not None else f"(no usable code in the reply)\n{reply.text[:400]}"
    if strategy == "draft":
        shown = f"[draft]\n{shown}"
    return StageOutput({"candidate": code, "candidate_strategy": strategy}, shown,
                       ok=code is not None)
