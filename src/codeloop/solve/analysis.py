"""Stage 1, analysis: behaviour, inputs and outputs, constraints, edge cases, pitfalls.
Prose only; a reply with code is asked for once more (see `ask_prose`). After a wrong
draft, the draft's first failure is in the prompt: it is the pitfall to analyse."""

from __future__ import annotations

from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.stage import PROMPTS, SolveContext, ask_prose
from codeloop.solve.state import SolveState
from codeloop.solve.verify import failure_note


def analyse(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    text, retried = ask_prose(ctx, usage, "analysis", load_prompt(PROMPTS, "analysis"),
                              source=ctx.task.prompt_source(),
                              failures=failure_note(state) if state["attempts"] else "")
    shown = text + ("\n(asked again: the first answer contained code)" if retried else "")
    return StageOutput({"analysis": text}, shown)
