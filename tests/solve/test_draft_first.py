"""The default order: generation drafts from the task alone; planning (told the draft's
failure), the planned generation and refinement run only when review finds the draft wrong.
Analysis runs only in the classic order (test_plan_first.py)."""

from __future__ import annotations

from solve_replies import HALF_WRONG, PLAN, RIGHT, WRONG

from codeloop.solve.state import CORRECT, HAS_ISSUES

PLANNED = ["generation", "review", "planning", "generation", "review"]


def test_a_right_draft_ends_the_run_without_analysis_or_planning(add_task, run):
    r = run(add_task, [RIGHT])
    assert r.stages() == ["generation", "review"]
    assert r.result.verdict == CORRECT and r.result.refinement_count == 0
    assert len(r.llm.calls) == 1 and r.llm.temperatures == [0.0]
    # The plain EvalPlus prompt: no plan, no failure note.
    assert r.prompts()[0].startswith("Please provide a self-contained Python script")
    assert "A plan you may follow" not in r.prompts()[0]
    assert r.result.analysis == "" and r.result.plan == ""
    assert [a["strategy"] for a in r.result.attempts] == ["draft"]
    assert set(r.result.stages) == {"generation", "review"}
    assert r.recorder.of_type("stage_start")[0].detail == "draft from the task alone"
    assert r.llm.task_starts == [0]  # the task starts from a fresh prompt cache, once


def test_a_wrong_draft_goes_to_planning_which_is_told_its_failure(add_task, run):
    r = run(add_task, [WRONG, PLAN, RIGHT])
    assert r.stages() == PLANNED
    assert "A first attempt got this wrong: add(0, 0) returned 1, expected 0" in r.prompts()[1]
    assert "a + b + 1" not in r.prompts()[1]  # the wrong code itself is never shown
    assert "Analysis:" not in r.prompts()[1]  # no analysis call after a draft
    assert PLAN in r.prompts()[2]
    assert [a["strategy"] for a in r.result.attempts] == ["draft", "generation"]
    assert r.result.verdict == CORRECT and r.result.refinement_count == 0
    assert r.result.analysis == "" and r.result.plan == PLAN
    assert [e.detail for e in r.recorder.of_type("stage_start") if e.stage == "generation"] == [
        "draft from the task alone", "following the plan"]
    assert r.llm.task_starts == [0]  # its calls share the cache: no reset between them


def test_after_a_draft_refinement_samples_and_never_repeats_the_plain_prompt(add_task, run):
    r = run(add_task, [WRONG, PLAN] + [WRONG] * 5)
    # Three rounds; the samples repeat the draft's failure (stuck), so the last round draws
    # one more within the budget (rounds.py).
    assert r.stages() == PLANNED + ["refinement", "review"] * 4
    # The greedy plain prompt would give the draft again: every round is a hinted sample.
    assert [a["strategy"] for a in r.result.attempts] == [
        "draft", "generation", "sample", "sample", "sample", "sample"]
    assert all(t > 0.0 for t in r.llm.temperatures[3:])
    assert all("earlier attempt got this wrong" in p for p in r.prompts()[3:])
    assert r.result.verdict == HAS_ISSUES and r.result.refinement_count == 3
    assert r.llm.remaining == 0


def test_a_planned_generation_worse_than_the_draft_never_replaces_it(add_task, run):
    broken = "```python\ndef add(a, b):\n    return 1 / 0\n```"
    r = run(add_task, [HALF_WRONG, PLAN, broken], max_refinements=0)
    assert r.stages() == PLANNED
    assert [a["accepted"] for a in r.result.attempts] == [True, False]
    assert "a + b + 1" in r.result.code and r.result.exec_result["passed"] == 2
    assert r.result.verdict == HAS_ISSUES


def test_a_draft_without_code_goes_to_planning(add_task, run):
    r = run(add_task, ["I would add the numbers.", PLAN, RIGHT])
    assert r.stages() == PLANNED
    assert r.result.attempts[0]["code"] is None
    assert "no usable Python code" in r.prompts()[1]
    assert r.result.verdict == CORRECT


def test_usage_counts_both_generations(add_task, run):
    r = run(add_task, [WRONG, PLAN, RIGHT])
    assert r.result.stages["generation"].calls == 2
    assert r.result.totals.calls == 3
    assert [e.stage for e in r.recorder.of_type("llm_call")] == [
        "generation", "planning", "generation"]


def test_each_candidate_carries_what_it_cost(add_task, run):
    r = run(add_task, [WRONG, PLAN, RIGHT])
    calls = r.recorder.of_type("llm_call")
    spent = [c.prompt_tokens + c.completion_tokens for c in calls]
    # The draft is its own call; the planned generation also pays for its plan.
    assert [a["tokens"] for a in r.result.attempts] == [spent[0], spent[1] + spent[2]]
    assert all(t > 0 for t in spent)
