"""The evaluator's point rules on hand-computed cases: every metric, then the overall score
(weights 35/25/15/10/15), with grounding kept beside it."""

from __future__ import annotations

import pytest

from codeloop.ask.context import AskContext
from codeloop.ask.evaluator import (
    WEIGHTS,
    output_quality,
    reasoning_quality,
    reflection_quality,
    score_run,
    task_completion,
    tool_effectiveness,
)
from codeloop.ask.state import ReflectionNote, ToolUse, create_initial_state
from codeloop.ask.tools.walk import RepoIndex


def _state(task_type="answer_question", repo="/r", **changes):
    state = create_initial_state("Where is the inventory valued?", task_type, repo=repo)
    state.update(changes)
    return state


def _tool(name, ok=True, size=100):
    return ToolUse(tool=name, arguments={}, ok=ok, result_size=size, summary="", seconds=0.0)


def _note(decision="generate", reason="enough evidence", iteration=1):
    return ReflectionNote(iteration=iteration, decision=decision, reason=reason)


@pytest.fixture
def ctx(pyapp):
    return AskContext(llm=None, task="t", index=RepoIndex.open(pyapp))


def test_weights_sum_to_100():
    assert WEIGHTS == {"task_completion": 35, "reasoning_quality": 25,
                       "tool_effectiveness": 15, "reflection_quality": 10, "output_quality": 15}


def test_task_completion(ctx):
    assert task_completion(_state(final_output=""), ctx)[0] == 0
    cited = _state(final_output="It is `inventory_value` at pyapp/report.py:6.", is_complete=True)
    assert task_completion(cited, ctx)[0] == 100  # 40 + 60 x 1
    named = _state(final_output="Look in pyapp/report.py.", is_complete=True)
    assert task_completion(named, ctx)[0] == 70  # 40 + 60 x 0.5
    vague = _state(final_output="Somewhere in the code.", is_complete=True)
    assert task_completion(vague, ctx)[0] == 40
    report = "# R\n## Purpose\nx\n## Structure\ny\n## Dependencies\nz\n"
    assert task_completion(_state("analyze_repo", final_output=report, is_complete=True),
                           ctx)[0] == 76  # 40 + 60 x 3/5
    post = " ".join(["word"] * 20)
    assert task_completion(_state("generate_content", None, final_output=post,
                                  is_complete=True), ctx)[0] == 70  # 40 + 60 x 20/40
    assert task_completion(_state("general", None, final_output="4", is_complete=False),
                           ctx)[0] == 60  # incomplete: 0 + 60 x 1


def test_reasoning_quality(ctx):
    steps = ["Planning: task type is answer_question, next action is retrieve",
             "Step 1: Find where `inventory_value` is", "Step 2: Read pyapp/report.py",
             "Step 3: Answer with the line"]
    assert reasoning_quality(_state(reasoning_steps=steps), ctx)[0] == 85  # 45 + 20 + 20
    generic = ["Step 1: Look", "Step 2: Think", "Step 3: Answer"]
    assert reasoning_quality(_state(reasoning_steps=generic), ctx)[0] == 65  # 45 + 20
    assert reasoning_quality(_state(reasoning_steps=generic, reasoning_fallback=True),
                             ctx)[0] == 45
    five = [f"Step {i}: do part {i} of the answer carefully now" for i in range(1, 6)]
    # no repository: specific = steps average 5+ words
    assert reasoning_quality(_state("general", None, reasoning_steps=five), ctx)[0] == 100
    # only the latest set of steps counts (a retry starts again at Step 1)
    again = [*generic, "Planning: ...", "Step 1: Look"]
    assert reasoning_quality(_state(reasoning_steps=again), ctx)[0] == 35  # 15 + 20
    assert reasoning_quality(_state(reasoning_steps=[]), ctx)[0] == 0


def test_tool_effectiveness():
    assert tool_effectiveness(_state("general", None))[0] == 100
    assert tool_effectiveness(_state("general", "/r"))[0] == 100  # arithmetic beside a repo
    assert tool_effectiveness(_state())[0] == 0  # a repository, no tool called
    uses = [_tool("generate_architecture_map"), _tool("retrieve_chunks", size=2)]
    # 1 of 2 calls useful (the retrieval found nothing: "[]"), the expected tool was called
    assert tool_effectiveness(_state(tool_usage=uses))[0] == 75  # 25 + 50
    # retrieval off: read_source_files is what a question expects
    assert tool_effectiveness(_state(tool_usage=uses, retrieval=False))[0] == 25
    four = [_tool("analyze_directory_structure"), _tool("extract_dependencies", ok=False),
            _tool("generate_architecture_map")]
    assert tool_effectiveness(_state("analyze_repo", tool_usage=four))[0] == 71  # 33.3+37.5


def test_reflection_quality():
    assert reflection_quality(_state())[0] == 0
    assert reflection_quality(_state(reflection_notes=[_note()]))[0] == 100
    capped = [_note("continue", "read x.py"), _note("generate", "the iteration cap (2) is "
                                                              "reached", 2)]
    assert reflection_quality(_state(reflection_notes=capped))[0] == 70
    assert reflection_quality(_state(reflection_notes=[_note("retry", "")]))[0] == 40


def test_output_quality():
    answer = "`inventory_value` sums the totals (pyapp/report.py:6)."
    assert output_quality(_state(final_output=answer))[0] == 100
    assert output_quality(_state(final_output="Short."))[0] == 30  # too short, no code name
    assert output_quality(_state(final_output="I cannot see the code, sorry, "
                                              "it is not there at all."))[0] == 40
    text = "A paragraph " * 10 + "\n\n" + "Another paragraph " * 10
    assert output_quality(_state("generate_content", None, final_output=text))[0] == 100
    assert output_quality(_state("general", None, final_output="2 + 2\nAnswer: 4"))[0] == 100
    assert output_quality(_state("general", None, final_output="It is four and"))[0] == 70
    assert output_quality(_state(final_output=""))[0] == 0


def test_overall_is_the_weighted_mean(ctx):
    state = _state(
        final_output="`inventory_value` sums the totals (pyapp/report.py:6).",
        is_complete=True,
        reasoning_steps=["Step 1: Look", "Step 2: Think", "Step 3: Answer"],
        tool_usage=[_tool("generate_architecture_map"), _tool("retrieve_chunks", size=2)],
        reflection_notes=[_note()])
    scores = score_run(state, ctx)
    got = {k: v["score"] for k, v in scores["metrics"].items()}
    assert got == {"task_completion": 100, "reasoning_quality": 65, "tool_effectiveness": 75,
                   "reflection_quality": 100, "output_quality": 100}
    # (100x35 + 65x25 + 75x15 + 100x10 + 100x15) / 100 = 87.5
    assert scores["overall"] == 87.5
    assert "grounding" not in scores  # reported beside, never folded in
