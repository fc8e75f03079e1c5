"""Stage 5, refinement: one round makes a new candidate; review then executes and judges it.

Each round is a fresh, short prompt, never a growing chat (small models repeat their
wrong code in a chat). Two tactics:
  resample  the plain one-shot prompt, greedy: when generation followed a plan, this is a
            different answer, and on HumanEval the strongest single guess a small model
            makes. Used once, first, and never when generation already drafted from the
            plain prompt (the answer would be the draft again).
  sample    the task with the concrete failures of the best code so far ("f(2) returned 5,
            expected 4"), at the prompt file's temperature, so every round is a new try;
            once a sample has repeated an earlier failure exactly, hotter (rounds.py).
  edge      the sample's prompt told a crash of code that passes every test ("f('')
            raised IndexError: ..."): solve/edges.py; review keeps the new code only if it
            fixes a crash and returns the same values elsewhere.
With `samples_per_round=2` a round may draw a second sample when its first fails, and a
stuck task's last round draws up to three (rounds.py). Review keeps whichever candidate passes more of the task's examples, so a round
can never make the result worse. Why not a repair prompt holding the wrong code: see
prompts/refinement.yaml (it fixed 2 of 37 failures where fresh samples fixed about 8).
"""

from __future__ import annotations

from dataclasses import replace

from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.rounds import STUCK_TEMPERATURE, stuck
from codeloop.solve.stage import PROMPTS, SolveContext, ask_code
from codeloop.solve.state import CORRECT, SolveState, Strategy
from codeloop.solve.verify import failure_note


def choose_tactic(state: SolveState, ctx: SolveContext) -> Strategy:
    if state["review"]["verdict"] == CORRECT:
        return "edge"  # the code passes every test and crashes on an edge call (edges.py)
    # The plain prompt differs from the planned one, so its greedy answer is a new sample;
    # after that (or with no plan to differ from), sampling is what gives a new answer.
    resampled = any(a["strategy"] in ("resample", "draft") for a in state["attempts"])
    if not resampled and state["plan"] and ctx.plan_in_generation:
        return "resample"
    return "sample"


def refine(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    tactic = choose_tactic(state, ctx)
    source = ctx.task.prompt_source()
    if tactic == "resample":
        spec = load_prompt(PROMPTS, "generation")
        messages = spec.messages(source=source, plan="")
    else:
        spec = load_prompt(PROMPTS, "refinement")
        if tactic == "sample" and stuck(state["attempts"]):
            spec = replace(spec, temperature=STUCK_TEMPERATURE)
        messages = spec.messages(source=source, failures=failure_note(state))
    reply, code = ask_code(ctx, usage, "refinement", messages, spec, end_at_block=True)
    label = tactic if spec.temperature == 0.0 else f"{tactic} at temperature {spec.temperature}"
    shown = f"[{label}]\n" + (code if code is not None
                              else f"(no usable code in the reply)\n{reply.text[:400]}")
    # The round's second sample (rounds.py) belongs to the round already counted.
    same_round = tactic != "edge" and ctx.another_sample(state)
    update = {"candidate": code, "candidate_strategy": tactic,
              "refinement_count": state["refinement_count"] + (0 if same_round else 1)}
    return StageOutput(update, shown, ok=code is not None)
