"""Stage 2, planning: approach, steps, edge-case strategy, data structures, complexity.
Prose only, enforced like the analysis. After a wrong draft (analysis did not run), the
draft's first failure is in the prompt: the plan must get that case right."""

from __future__ import annotations

from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.stage import PROMPTS, SolveContext, ask_prose, clip
from codeloop.solve.state import SolveState
from codeloop.solve.verify import failure_note

ANALYSIS_CHARS = 900  # what of the analysis goes into the planning prompt


def plan(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    text, retried = ask_prose(ctx, usage, "planning", load_prompt(PROMPTS, "planning"),
                              source=ctx.task.prompt_source(),
                              analysis=clip(state["analysis"], ANALYSIS_CHARS),
                              failures=failure_note(state) if state["attempts"] else "")
    shown = text + ("\n(asked again: the first answer contained code)" if retried else "")
    return StageOutput({"plan": text}, shown)
