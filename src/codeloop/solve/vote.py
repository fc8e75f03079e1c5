"""A second opinion on code that passes its examples only after a revealed failure.

When the draft failed an example and a later candidate passes them all, that candidate was
written toward the examples it was told of; on HumanEval a third of such code is wrong where
the examples do not look (10 of 29 in benchmarks/results/humaneval-1.5b-pipeline-stuck-more,
against 6 wrong of the 111 drafts that passed at once). The vote asks the model once more,
from the task and the draft's failure (not the code: small models copy what they are shown),
and runs both on calls made from the examples: one argument made empty, cut to one item,
given a duplicate, or made 0, 1 or negative (solve/edges.py). Nothing knows the right values
there; only agreement counts:

  the sample fails an example, or does what the code does on every call  -> the code stays
  they disagree -> a second sample; the code is replaced only when that one also passes
  every example and, on the calls in dispute, sides with the first sample at least once
  and with the code never (two written independently against one); else the code stays.

After a vote the task ends: the result is what review says of the code kept. The calls run
in the trusted harness like the examples, as literals (solve/probes.py). Only a task that
has spent under VOTE_BUDGET times its draft's tokens votes.

Off by default (`--vote` turns it on): in a full HumanEval run (benchmarks/results/
humaneval-1.5b-pipeline-vote) it voted on 27 problems for 0.23x one-shot's tokens and changed
no answer; on the 10 wrong codes it checked, the samples failed an example too or repeated the
code's behaviour.
"""

from __future__ import annotations

from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.crosscheck import Behaviour, behaviour
from codeloop.solve.edges import boundary_calls, edge_calls
from codeloop.solve.mismatch import with_remark
from codeloop.solve.rounds import first_failure, within_budget
from codeloop.solve.stage import PROMPTS, SolveContext, ask_code
from codeloop.solve.state import CORRECT, Candidate, ExecSummary, SolveState
from codeloop.solve.verify import assess, execute_candidate, feedback_text, show

VOTE_BUDGET = 10.0  # x the draft's tokens spent so far, the most a task may have spent


def needs_vote(state: SolveState, calls: list[str]) -> bool:
    """Tested code that passes every test, where the first candidate failed a test; once,
    with calls to compare on and within the budget."""
    attempts = state["attempts"]
    return (bool(calls) and state["review"]["verdict"] == CORRECT
            and state["exec_result"]["total"] > 0 and len(attempts) > 1
            and attempts[0]["passed"] < attempts[0]["total"]
            and not any(a["strategy"] == "vote" for a in attempts)
            and within_budget(attempts, VOTE_BUDGET))


def disputed(a: Behaviour, b: Behaviour) -> list[int]:
    """The calls on which two behaviours differ, where one of them returned a value (two
    crashes of other types are no disagreement about what the function returns)."""
    if a is None or b is None:
        return []
    return [i for i, (x, y) in enumerate(zip(a, b, strict=True))
            if x != y and (x.startswith("value ") or y.startswith("value "))]


def sides_with(third: Behaviour, first: Behaviour, code: Behaviour, calls: list[int]) -> bool:
    """On the calls where the first sample and the code differ, the third behaviour agrees
    with the sample at least once and with the code never (a third answer on an input the
    task may not allow, a negative count, say, is no vote for the code)."""
    if third is None or first is None or code is None:
        return False
    return (any(third[i] == first[i] for i in calls)
            and not any(third[i] == code[i] for i in calls))


class _Sample:
    def __init__(self, code: str | None, summary: ExecSummary, tokens: int) -> None:
        self.code, self.summary, self.tokens = code, summary, tokens
        self.behaviour: Behaviour = None

    @property
    def passes(self) -> bool:
        return self.code is not None and self.summary["all_passed"]


def _draw(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> _Sample:
    spec = load_prompt(PROMPTS, "refinement")
    told = with_remark(first_failure(state["attempts"][0]))
    before = usage.total_tokens
    _reply, code = ask_code(ctx, usage, "vote",
                            spec.messages(source=ctx.task.prompt_source(), failures=told),
                            spec, end_at_block=True)
    return _Sample(code, execute_candidate(code, ctx), usage.total_tokens - before)


def vote(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    calls = ctx.vote_calls
    first = _draw(state, ctx, usage)
    samples, switch = [first], False
    if not first.passes:
        decided = "an independent sample fails an example; kept the code"
    else:
        # The code's own behaviour is needed only now: a failing sample ends the vote.
        current = behaviour(state["code"], calls, ctx)
        first.behaviour = behaviour(first.code, calls, ctx)
        apart = disputed(current, first.behaviour)
        if not apart:
            decided = (f"an independent sample passes every example and does the same on "
                       f"the {len(calls)} edge calls; kept the code")
        else:
            second = _draw(state, ctx, usage)
            samples.append(second)
            if second.passes:
                second.behaviour = behaviour(second.code, calls, ctx)
            switch = sides_with(second.behaviour, first.behaviour, current, apart)
            assert first.behaviour is not None and current is not None  # they differ
            shown = f"{calls[apart[0]]}: {first.behaviour[apart[0]]}, the code {current[apart[0]]}"
            decided = (f"two independent samples agree against the code on {len(apart)} edge "
                       f"call(s) ({shown}); took the first" if switch else
                       f"a sample differs from the code on {len(apart)} edge call(s) "
                       f"({shown}) and a second does not side with it; kept the code")
    attempts = [_candidate(state, s, accepted=switch and i == 0) for i, s in enumerate(samples)]
    note = f"vote: {decided}"
    if not switch:
        review = {**state["review"], "notes": [*state["review"]["notes"], note]}
        return StageOutput({"attempts": attempts, "review": review}, note)
    update = {**assess(first.code or "", first.summary, ctx), "attempts": attempts}
    update["review"] = {**update["review"],
                        "notes": [*state["review"]["notes"], *update["review"]["notes"], note]}
    return StageOutput(update, show(update["review"]), ok=update["review"]["verdict"] == CORRECT)


def _candidate(state: SolveState, sample: _Sample, *, accepted: bool) -> Candidate:
    return Candidate(round=state["refinement_count"], strategy="vote", code=sample.code,
                     passed=sample.summary["passed"], total=sample.summary["total"],
                     accepted=accepted, feedback=feedback_text(sample.summary),
                     tokens=sample.tokens)


def vote_calls(assertions: list[str], name: str) -> list[str]:
    """The calls a vote compares on: the examples' calls with one argument made empty or cut
    to one item, then at a boundary (solve/edges.py)."""
    return list(dict.fromkeys([*edge_calls(assertions, name), *boundary_calls(assertions, name)]))
