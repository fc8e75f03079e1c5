"""With `samples_per_round=2` a refinement round draws a second sample when its first fails,
within the task's token budget (solve/rounds.py); rounds are counted as rounds, not as
samples. One sample a round is the default."""

from __future__ import annotations

import pytest
from solve_replies import PLAN, RIGHT, WRONG

from codeloop.solve.rounds import STUCK_LAST_ROUND_SAMPLES, STUCK_TEMPERATURE, within_budget
from codeloop.solve.state import CORRECT, HAS_ISSUES

PLANNED = ["generation", "review", "planning", "generation", "review"]
HALF = ("```python\ndef add(a: int, b: int) -> int:\n"
        "    return 0 if a == 0 else a + b + 1\n```")  # passes add(0, 0) == 0 only
# The same wrong code with a long comment: a sample that costs ten drafts.
COSTLY_WRONG = WRONG.replace("    return", "    # " + "padding " * 120 + "\n    return")


def _strategies_and_rounds(result) -> list[tuple[str, int]]:
    return [(a["strategy"], a["round"]) for a in result.attempts]


def test_a_failing_sample_is_followed_by_a_second_in_its_round(add_task, run):
    r = run(add_task, [WRONG, PLAN] + [WRONG] * 10, samples_per_round=2)
    # The draft cost 87 tokens, so the budget is 696: round 1 draws two samples (580
    # spent, the next would cost 106 more: 686), round 2 one (792 would be over), round 3
    # one.
    assert _strategies_and_rounds(r.result) == [
        ("draft", 0), ("generation", 0), ("sample", 1), ("sample", 1), ("sample", 2),
        ("sample", 3)]
    assert r.result.refinement_count == 3 and r.result.verdict == HAS_ISSUES
    details = [e.detail for e in r.recorder.of_type("stage_start") if e.stage == "refinement"]
    assert details == ["round 1 of 3", "round 1 of 3, sample 2", "round 2 of 3", "round 3 of 3"]
    # Every sample repeats the draft's failure: after the first, samples are drawn hotter.
    assert r.llm.temperatures[3:] == [0.5] + [STUCK_TEMPERATURE] * 3
    assert r.llm.remaining == 5


def test_a_passing_second_sample_ends_the_run_in_its_round(add_task, run):
    r = run(add_task, [WRONG, PLAN, WRONG, WRONG, RIGHT], samples_per_round=2)
    assert r.stages() == PLANNED + ["refinement", "review"] * 2
    assert r.result.verdict == CORRECT and r.result.refinement_count == 1
    assert "return a + b\n" in r.result.code and r.llm.remaining == 0


def test_the_second_sample_is_told_the_failure_of_the_best_code_so_far(add_task, run):
    # The first sample passes one of two examples and becomes the best code: the second
    # sample is told what that code gets wrong, not the draft's failure.
    r = run(add_task, [WRONG, PLAN, WRONG, HALF, RIGHT], samples_per_round=2)
    assert r.result.verdict == CORRECT
    assert "add(0, 0) returned 1, expected 0" in r.prompts()[3]
    assert "add(-1, 1) returned 1, expected 0" in r.prompts()[4]
    assert _strategies_and_rounds(r.result)[-2:] == [("sample", 1), ("sample", 1)]
    assert [a["accepted"] for a in r.result.attempts] == [True, False, True, True]


def test_samples_that_cost_more_than_the_budget_get_one_per_round(add_task, run):
    r = run(add_task, [WRONG, PLAN] + [COSTLY_WRONG] * 6, samples_per_round=2)
    assert [s for s, _ in _strategies_and_rounds(r.result)] == [
        "draft", "generation", "sample", "sample", "sample"]
    assert [n for _, n in _strategies_and_rounds(r.result)] == [0, 0, 1, 2, 3]
    assert r.llm.remaining == 2


MINUS = "```python\ndef add(a: int, b: int) -> int:\n    return a - b\n```"  # add(-1, 1) == -2
TIMES = "```python\ndef add(a: int, b: int) -> int:\n    return a * b\n```"  # add(-1, 1) == -1


def test_one_sample_a_round_is_the_default(add_task, run):
    # Each sample fails somewhere new (no round is stuck): one sample a round, three rounds.
    r = run(add_task, [WRONG, PLAN, WRONG, HALF, MINUS, TIMES, RIGHT])
    assert _strategies_and_rounds(r.result) == [
        ("draft", 0), ("generation", 0), ("sample", 1), ("sample", 2), ("sample", 3)]
    assert r.result.verdict == HAS_ISSUES and r.llm.remaining == 1


def test_a_stuck_task_draws_more_samples_in_its_last_round(add_task, run):
    # Every sample repeats the draft's failure: after three rounds the last one draws up to
    # STUCK_LAST_ROUND_SAMPLES, hot, and the one that passes ends the task.
    # The draft is long (COSTLY_WRONG), so the budget (10x the draft) is no limit here.
    r = run(add_task, [COSTLY_WRONG, PLAN] + [WRONG] * 5 + [RIGHT, RIGHT])
    assert _strategies_and_rounds(r.result) == [
        ("draft", 0), ("generation", 0), ("sample", 1), ("sample", 2), ("sample", 3),
        ("sample", 3), ("sample", 3)]
    assert STUCK_LAST_ROUND_SAMPLES == 3
    assert r.result.verdict == CORRECT and r.result.refinement_count == 3
    assert r.llm.temperatures[3:] == [0.5] + [STUCK_TEMPERATURE] * 4
    details = [e.detail for e in r.recorder.of_type("stage_start") if e.stage == "refinement"]
    assert details == ["round 1 of 3", "round 2 of 3", "round 3 of 3",
                       "round 3 of 3, sample 2", "round 3 of 3, sample 3"]
    assert "return a + b\n" in r.result.code and r.llm.remaining == 1


def test_a_stuck_task_stops_at_its_last_round_samples(add_task, run):
    r = run(add_task, [COSTLY_WRONG, PLAN] + [WRONG] * 8)
    assert [n for _, n in _strategies_and_rounds(r.result)] == [0, 0, 1, 2, 3, 3, 3]
    assert r.result.verdict == HAS_ISSUES and r.llm.remaining == 2


def test_a_stuck_task_stops_at_its_budget_in_the_last_round(add_task, run):
    # The draft cost 87 tokens: after three rounds 686 are spent, a sample costs 106, so the
    # last round draws one more (792) and not a third (898 > 870, 10x the draft).
    r = run(add_task, [WRONG, PLAN] + [WRONG] * 6)
    assert [n for _, n in _strategies_and_rounds(r.result)] == [0, 0, 1, 2, 3, 3]
    assert r.llm.remaining == 1
    # Samples costing about ten drafts each: nothing more in the last round.
    costly = run(add_task, [WRONG, PLAN] + [COSTLY_WRONG] * 6)
    assert [n for _, n in _strategies_and_rounds(costly.result)] == [0, 0, 1, 2, 3]
    assert costly.llm.remaining == 2


def test_a_sample_that_repeats_an_earlier_failure_makes_the_later_samples_hotter(add_task, run):
    # The planned generation repeats the draft's failure: not a stuck sample, the first
    # sample is drawn at the prompt's temperature. It fails as the draft did: stuck.
    r = run(add_task, [WRONG, PLAN, WRONG, WRONG, WRONG, RIGHT])
    assert r.llm.temperatures[:3] == [0.0, 0.0, 0.0]
    assert r.llm.temperatures[3:] == [0.5, STUCK_TEMPERATURE, STUCK_TEMPERATURE]
    assert r.result.verdict == CORRECT and r.result.refinement_count == 3
    labels = [e.output.splitlines()[0] for e in r.recorder.of_type("stage_end")
              if e.stage == "refinement"]
    assert labels[-1] == f"[sample at temperature {STUCK_TEMPERATURE}]"


def test_samples_that_fail_somewhere_new_stay_at_the_prompt_temperature(add_task, run):
    # HALF fails add(-1, 1) with 1, MINUS with -2: each a new first failure.
    r = run(add_task, [WRONG, PLAN, WRONG, HALF, MINUS, RIGHT])
    assert r.llm.temperatures[3:] == [0.5, 0.5, 0.5]
    assert r.result.verdict == CORRECT


def test_no_refinement_rounds_means_no_samples_at_all(add_task, run):
    r = run(add_task, [WRONG, PLAN, WRONG, WRONG], max_refinements=0, samples_per_round=2)
    assert [s for s, _ in _strategies_and_rounds(r.result)] == ["draft", "generation"]
    assert r.llm.remaining == 1


def test_a_seeded_run_draws_its_samples_again_and_leaves_greedy_calls_alone(add_task, run):
    replies = [WRONG, PLAN] + [WRONG] * 10
    seeded = run(add_task, replies, seed=3, samples_per_round=2)
    # draft, planning and the planned generation are greedy; the four samples are seeded.
    assert seeded.llm.seeds[:3] == [None] * 3
    assert all(isinstance(s, int) for s in seeded.llm.seeds[3:])
    assert len(set(seeded.llm.seeds[3:])) == 4
    again = run(add_task, replies, seed=3, samples_per_round=2)
    assert again.llm.seeds == seeded.llm.seeds
    assert run(add_task, replies, seed=4, samples_per_round=2).llm.seeds[3:] != seeded.llm.seeds[3:]
    assert run(add_task, replies, samples_per_round=2).llm.seeds == [None] * 7


def test_samples_per_round_below_one_is_refused(add_task, run):
    with pytest.raises(ValueError, match="samples_per_round must be 1 or more"):
        run(add_task, [WRONG], samples_per_round=0)


@pytest.mark.parametrize(("tokens", "budget", "expected"), [
    ([100, 300, 200], 8.0, True),     # 600 spent, 800 with the next: at the budget
    ([100, 300, 200, 200], 8.0, False),  # 1000 would be over 800
    ([0, 300, 200], 8.0, False),      # no draft cost known: no second sample
    ([], 8.0, False),
])
def test_the_budget_is_counted_in_multiples_of_the_draft(tokens, budget, expected):
    attempts = [{"tokens": t} for t in tokens]
    assert within_budget(attempts, budget) is expected
