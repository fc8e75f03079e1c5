"""How many samples a refinement round draws: one by default; with `samples_per_round=2`
(`solve --samples-per-round 2`) a second one when the first fails; in the last round of a
stuck task (a sample repeated an earlier failure exactly) up to STUCK_LAST_ROUND_SAMPLES.

A round is one failure told to the model: the best code's first failing case. Its first
sample is always drawn; when that sample does not pass, a second one may be drawn in the
same round (told the failure of the best code, which the first sample may have improved),
as long as the task has spent less than `sample_budget` times its draft's tokens.

Why: on HumanEval a sample that a failure is told wins about one problem in seven, the
planned generation one in ten at twice the tokens; the fourth and fifth samples still won
3 problems of 42 tries (benchmarks/results/humaneval-1.5b-pipeline-5rounds). Why the
budget: MBPP's drafts are half as long as HumanEval's while its samples cost about the
same, so unbounded second samples would take MBPP past 3x one-shot's tokens; a budget
relative to the draft keeps every task's refinement in proportion to one plain answer,
whatever the dataset. Replayed on the five-round runs' records (benchmarks/sample_budget.py),
a budget of 8x the draft gave HumanEval +2 problems for +0.23x one-shot's tokens and MBPP +3
for +0.23x; 9x and 10x gained one more problem each for more tokens. But the one full
HumanEval run with two samples a round (benchmarks/results/humaneval-1.5b-pipeline-two-samples)
gave 129/164 at 2.60x one-shot's tokens, against 131 at 2.32x in the run before it; read
without its second samples it gives 128 at 2.32x: 36 second samples won one problem
(HumanEval/10) for 18,459 tokens. One sample a round stays the default.
"""

from __future__ import annotations

from codeloop.solve.state import Candidate, SolveState

SAMPLES_PER_ROUND = 1  # the default: two did not pay in a full run (see above)
SAMPLE_BUDGET = 8.0  # x the draft's tokens: the most a task spends before a second sample


def samples_in_round(state: SolveState) -> int:
    """Samples drawn in the current round (a round starts when refinement_count grows)."""
    current = state["refinement_count"]
    return sum(1 for a in state["attempts"]
               if a["round"] == current and a["strategy"] in ("sample", "resample"))


def within_budget(attempts: list[Candidate], budget: float) -> bool:
    """Would one more sample, costing what the last one did, stay within the budget?"""
    if not attempts or attempts[0]["tokens"] <= 0:
        return False
    spent = sum(a["tokens"] for a in attempts)
    return spent + attempts[-1]["tokens"] <= budget * attempts[0]["tokens"]


def another_sample_in_round(state: SolveState, samples_per_round: int, budget: float) -> bool:
    """After a failing sample: draw the round's next sample instead of starting a round.
    A stuck task's last round draws up to STUCK_LAST_ROUND_SAMPLES (see below)."""
    drawn = samples_in_round(state)
    if drawn == 0:
        return False
    if drawn < samples_per_round and within_budget(state["attempts"], budget):
        return True
    return (state["refinement_count"] >= state["max_refinements"]
            and drawn < STUCK_LAST_ROUND_SAMPLES and stuck(state["attempts"])
            and within_budget(state["attempts"], max(budget, STUCK_BUDGET)))


# Rounds at most spent on crashes of code that passes every test. One: in a full HumanEval
# run with two (benchmarks/results/humaneval-1.5b-pipeline-edges), every edge candidate kept
# was a first one, and the second rounds cost about as many tokens as the first.
EDGE_ROUNDS = 1


def edge_round_due(state: SolveState, budget: float) -> bool:
    """Code that passes every test crashes on an edge call (solve/edges.py): draw a sample
    told the crash, while rounds are left, fewer than EDGE_ROUNDS went to crashes and
    the task is within its token budget."""
    if not state["exec_result"].get("edge_failures"):
        return False
    spent = sum(1 for a in state["attempts"] if a["strategy"] == "edge")
    return (state["refinement_count"] < state["max_refinements"] and spent < EDGE_ROUNDS
            and within_budget(state["attempts"], budget))


# The temperature of samples once a sample has repeated an earlier candidate's first failure
# exactly (the round is stuck: told "f(x) returned A", it returned A again). On the 32
# HumanEval problems whose samples did that in any of three full runs, three samples each told
# the draft's failure (benchmarks/results/refine-tactics/humaneval-1.5b-stuck.jsonl): at 0.5
# 18 of 96 were right, 9 problems won; at 1.0 14 of 96, 13 problems, eight of them not won at
# 0.5. So the first sample stays at the prompt's 0.5, and a stuck task's later samples look
# further away.
STUCK_TEMPERATURE = 1.0

# A stuck task that still fails after its last round's sample draws more samples in that
# round, up to this many, while it has spent under STUCK_BUDGET x its draft's tokens. Why:
# in the full HumanEval run with hot samples (benchmarks/results/humaneval-1.5b-pipeline-
# stuck-hot) 40 hot samples won 8 of 26 stuck problems, a rate a second sample at 0.5 in
# every failing round never came near (36 won one); the stuck problems still wrong after three
# rounds include four that a sample at 1.0 got right in one try of three (refine-tactics).
# Only after the last round, so every earlier call (and its seed) stays what it was. Why the
# budget: replayed on both runs' records, two more samples cost +0.17x one-shot's tokens on
# HumanEval and +0.11x on MBPP at 10x the draft (MBPP's short drafts bound it), +0.34x on
# MBPP without a bound.
STUCK_LAST_ROUND_SAMPLES = 3
STUCK_BUDGET = 10.0


def first_failure(candidate: Candidate) -> str:
    """The first line of what review said of a failing candidate ('' when it passed)."""
    if candidate["total"] and candidate["passed"] == candidate["total"]:
        return ""
    return (candidate["feedback"] or "").split("\n", 1)[0]


def stuck(attempts: list[Candidate]) -> bool:
    """Some sample failed first exactly where a candidate before it had failed."""
    for i, attempt in enumerate(attempts):
        line = first_failure(attempt)
        if attempt["strategy"] == "sample" and line and any(
                first_failure(earlier) == line for earlier in attempts[:i]):
            return True
    return False

