"""Stage 5, refinement: one round makes a new candidate; review then executes and judges it.

Each round is a fresh, short prompt, never a growing chat (small models repeat their
wrong code in a chat). Two tactics:
  resample  a fresh answer to the plain one-shot prompt: greedy first (when generation had
            a plan, this is a new sample, and on HumanEval it is the strongest single
            guess a small model makes), then at a low temperature;
  repair    the task, the current code and its concrete failures ("f(2) returned 5,
            expected 4"); used after the greedy resample, and again after a round that
            improved the code.
Measured on HumanEval/0-28 with the 1.5B model: three of the five first generations that
failed were fixed by the greedy resample and none by a repair tried before it, so the
resample goes first. Review keeps whichever candidate passes more of the task's examples.
"""

from __future__ import annotations

from codeloop.llm.base import CallLog
from codeloop.pipeline.extract import extract_code
from codeloop.pipeline.prompts_loader import load_prompt
from codeloop.pipeline.review import feedback_text
from codeloop.pipeline.stage import StageContext, StageOutput, ask_model
from codeloop.pipeline.state import SolveState, Strategy

MAX_WARNINGS = 3


def choose_tactic(state: SolveState, ctx: StageContext) -> tuple[Strategy, float | None]:
    """(tactic, temperature); None means the prompt file's own temperature."""
    attempts = state["attempts"]
    resampled = any(a["strategy"] == "resample" for a in attempts)
    # The plain prompt differs from the planned one, so its greedy answer is a new sample;
    # after that (or with no plan to differ from), sampling is what gives a new answer.
    if not resampled and state["plan"] and ctx.plan_in_generation:
        return "resample", 0.0
    repaired = any(a["strategy"] == "repair" for a in attempts)
    if state["code"] and (not repaired or attempts[-1]["accepted"]):
        return "repair", None
    return "resample", float(load_prompt("refinement").extra.get("resample_temperature", 0.6))


def failure_report(state: SolveState) -> str:
    lines = [f"- {line}" for line in feedback_text(state["exec_result"]).splitlines()]
    warnings = state["review"]["warnings"][:MAX_WARNINGS]
    text = "Running it against the examples gave:\n" + "\n".join(lines)
    if warnings:
        text += "\nAlso fix: " + "; ".join(warnings)
    return text


def refine(state: SolveState, ctx: StageContext, log: CallLog) -> StageOutput:
    tactic, temperature = choose_tactic(state, ctx)
    source = ctx.task.prompt_source()
    if tactic == "repair":
        spec = load_prompt("refinement")
        messages = spec.messages(source=source, code=state["code"].strip(),
                                 failures=failure_report(state))
    else:
        spec = load_prompt("generation")
        messages = spec.messages(source=source, plan="")
    reply = ask_model(ctx, log, "refinement", messages, spec, temperature=temperature)
    code = extract_code(reply.text, ctx.task.entry_point)
    label = tactic if temperature in (None, 0.0) else f"{tactic} at temperature {temperature}"
    shown = f"[{label}]\n" + (code if code is not None
                              else f"(no usable code in the reply)\n{reply.text[:400]}")
    update = {"candidate": code, "candidate_strategy": tactic,
              "refinement_count": state["refinement_count"] + 1}
    return StageOutput(update, shown, ok=code is not None)
