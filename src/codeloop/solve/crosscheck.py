"""The cross-check of untested code: when a task has no examples and no test file, review
can only see that the code loads and matches the signature. The refinement rounds, unused
then, buy independent candidates instead, and all of them run on calls the model proposes
from the description (only the calls: a small model's expected values are often wrong).
The behaviour most candidates share wins, the current code keeping ties (MBR-exec, CodeT):
a draft that misread the task is outvoted only when more of the samples agree with each
other than with it. The result stays marked untested, with how far the candidates agreed.

Off by default (`codeloop solve --crosscheck`, the bench strategy `crosscheck`): on the ten
HumanEval problems without an example it changed no answer and spent 4.3 times their tokens
(benchmarks/results/humaneval-1.5b-pipeline-crosscheck). What it gives is the agreement.
"""

from __future__ import annotations

from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.execute import run_probes
from codeloop.solve.extract import check_signature, join_program
from codeloop.solve.probes import informative, majority, probe_calls
from codeloop.solve.stage import PROMPTS, SolveContext, ask_code
from codeloop.solve.state import CORRECT, UNTESTED, Candidate, SolveState
from codeloop.solve.verify import assess, execute_candidate, show

PROBES_ASKED = 6
PROBE_TIMEOUT = 5.0  # seconds a call; a candidate that loops costs this, not the task's limit

Behaviour = tuple[str, ...] | None


def rounds_left(state: SolveState) -> int:
    return state["max_refinements"] - state["refinement_count"]


def needs_crosscheck(state: SolveState) -> bool:
    """Code that review found untested (no test at all), once, while rounds are left."""
    return (state["review"]["verdict"] == UNTESTED and not state["exec_result"]["total"]
            and rounds_left(state) > 0
            and not any(a["strategy"] == "crosscheck" for a in state["attempts"]))


def behaviour(code: str | None, calls: list[str], ctx: SolveContext) -> Behaviour:
    """What `code` does on each call; None when it has no code, the wrong signature, or
    does not load."""
    if code is None:
        return None
    if not check_signature(code, ctx.task.signature_node(), names=ctx.task.parameter_names).ok:
        return None
    return run_probes(join_program(ctx.task.context, code), calls,
                      timeout=min(ctx.sandbox_timeout, PROBE_TIMEOUT),
                      entry_point=ctx.task.entry_point, unsafe_no_sandbox=ctx.unsafe_no_sandbox)


def crosscheck(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    task = ctx.task
    spec = load_prompt(PROMPTS, "probes")
    reply = ctx.ask(usage, "crosscheck", spec.messages(
        source=task.prompt_source(), count=PROBES_ASKED, entry_point=task.entry_point), spec)
    calls = probe_calls(reply.text, task.signature_node())
    if not calls:
        note = (f"cross-check skipped: the model proposed no call of `{task.entry_point}` "
                "with plain literal arguments")
        return StageOutput({"review": _noted(state["review"], note)}, note)
    probe_cost = usage.total_tokens
    sample_spec = load_prompt(PROMPTS, "refinement")
    candidates, costs = [state["code"]], [0]
    for _ in range(rounds_left(state)):
        before = usage.total_tokens
        _reply, code = ask_code(ctx, usage, "crosscheck",
                                sample_spec.messages(source=task.prompt_source(), failures=""),
                                sample_spec, end_at_block=True)
        candidates.append(code)
        costs.append(usage.total_tokens - before)
    costs[1] += probe_cost
    behaviours = [behaviour(code, calls, ctx) for code in candidates]
    kept = informative(behaviours)
    if not kept:
        note = (f"cross-check: no candidate returned a value on any of the {len(calls)} calls "
                "the model proposed; kept the code")
        attempts = _attempts(state, candidates, costs, None, [], calls, behaviours)
        return StageOutput({"review": _noted(state["review"], note), "attempts": attempts}, note)
    seen = [None if b is None else tuple(b[i] for i in kept) for b in behaviours]
    winner = majority(seen)
    assert winner is not None  # the current code loads, so it ran
    agree = sum(1 for b in seen if b == seen[winner])
    loading = sum(1 for b in seen if b is not None)
    summary = (f"{agree} of {len(candidates)} candidates written independently return the "
               f"same on {len(kept)} call(s) the model proposed")
    if loading < len(candidates):
        summary += f" ({len(candidates) - loading} did not load or had another signature)"
    if 2 * agree <= len(candidates):
        # On HumanEval's problems without examples: all agreed on 5, 4 of them right; the
        # two where no sample agreed with the draft were one right, one wrong.
        summary += "; they disagree, so read the code"
    update: dict = {"attempts": _attempts(state, candidates, costs, winner, kept, calls, seen)}
    if winner == 0:
        review = _noted(state["review"], f"cross-check: {summary}; kept the code")
    else:
        code = candidates[winner] or ""
        update.update(assess(code, execute_candidate(code, ctx), ctx))
        # The new code's verdict and warnings, the run's notes so far, then what happened.
        review = {**update["review"], "notes": [*state["review"]["notes"], (
            f"cross-check: {summary}; took sample {winner}, which more candidates agree with "
            f"than with the code before ({sum(1 for b in seen if b == seen[0])} of "
            f"{len(candidates)})")]}
    update["review"] = _agreement_told(review, summary)
    return StageOutput(update, show(update["review"]) + "\n" + _table(calls, kept, seen),
                       ok=update["review"]["verdict"] == CORRECT)


def _noted(review: dict, note: str) -> dict:
    return {**review, "notes": [*review["notes"], note]}


def _agreement_told(review: dict, summary: str) -> dict:
    """The untested reason, saying what the cross-check did see (agreement is not a test)."""
    told = (f"{review.get('untested') or 'no test ran'}; {summary} (agreement, not checked "
            "against expected values)")
    return {**review, "untested": told}


def _attempts(state: SolveState, candidates: list[str | None], costs: list[int],
              winner: int | None, kept: list[int], calls: list[str],
              seen: list) -> list[Candidate]:
    """The samples (candidates[1:]) as the state's attempts."""
    out = []
    for index, code in enumerate(candidates[1:], start=1):
        out.append(Candidate(round=state["refinement_count"], strategy="crosscheck", code=code,
                             passed=0, total=0, accepted=index == winner,
                             feedback=_feedback(index, winner, kept, calls, seen),
                             tokens=costs[index]))
    return out


def _feedback(index: int, winner: int | None, kept: list[int], calls: list[str],
              seen: list) -> str:
    mine = seen[index]
    if mine is None:
        return "no usable code, another signature, or it does not load"
    if winner is None:
        return f"returned no value on the {len(calls)} proposed calls"
    if mine == seen[winner]:
        return f"the same as the chosen code on {len(kept)} call(s)"
    at = next(i for i, (a, b) in enumerate(zip(mine, seen[winner], strict=True)) if a != b)
    return f"{calls[kept[at]]}: {mine[at]}, where the chosen code gives {seen[winner][at]}"


def _table(calls: list[str], kept: list[int], seen: list) -> str:
    """What each candidate did on each informative call, for the live view."""
    lines = []
    for column, probe in enumerate(kept):
        row = ["-" if b is None else b[column] for b in seen]
        lines.append(f"{calls[probe]}: " + " | ".join(row))
    return "\n".join(lines)
