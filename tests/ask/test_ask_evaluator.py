"""The evaluator's point rules (the seed's, TooPositive/Simple-RAG src/evaluation/metrics.py)
on hand-computed cases: every metric, every kind of output, then the overall score (weights
35/25/15/10/15), with grounding kept beside it."""

from __future__ import annotations

from codeloop.ask.evaluator import (
    WEIGHTS,
    output_kind,
    output_quality,
    reasoning_quality,
    reflection_quality,
    reflection_section,
    score_run,
    task_completion,
    tool_effectiveness,
)
from codeloop.ask.state import ReflectionNote, ToolUse, create_initial_state

QUESTION = "Where is the inventory valued?"
SHORT = "`inventory_value` sums the totals (pyapp/report.py:6)."
LONG = ("The function `inventory_value()` in pyapp/report.py (line 6) adds up `item.total()` "
        "for every item. It is used in pyapp/cli.py, whose `main` prints the value; each "
        "total is the quantity times the price, from pyapp/models.py line 12.")
SECTION = ("\n\n## How self-reflection improved\nAddressing the critique noted, I added the "
           "line numbers.")


def _state(task=QUESTION, task_type="answer_question", repo="/r", **changes):
    state = create_initial_state(task, task_type, repo=repo)
    state.update(changes)
    return state


def _tool(name="retrieve_chunks"):
    return ToolUse(tool=name, arguments={}, ok=True, result_size=100, summary="", seconds=0.0)


def _notes(n):
    return [ReflectionNote(iteration=i, decision="continue", reason="more") for i in range(n)]


def test_weights_sum_to_100():
    assert WEIGHTS == {"task_completion": 35, "reasoning_quality": 25,
                       "tool_effectiveness": 15, "reflection_quality": 10, "output_quality": 15}


def test_task_completion():
    # 50 output + 30 complete + 20 within the iteration limit (10 at it)
    assert task_completion(_state())[0] == 20  # nothing yet, 0 of 10 iterations
    done = _state(final_output="x", is_complete=True, iteration_count=3)
    assert task_completion(done)[0] == 100
    assert task_completion({**done, "iteration_count": 10})[0] == 90
    assert task_completion({**done, "is_complete": False, "iteration_count": 11})[0] == 50


def test_reasoning_quality():
    # 40 for any step; +40 for 5+, +30 for 3+, +20 for 1+; +20 for any reflection note
    assert reasoning_quality(_state())[0] == 0
    assert reasoning_quality(_state(reasoning_steps=["a"]))[0] == 60
    assert reasoning_quality(_state(reasoning_steps=["a", "b"],
                                    reflection_notes=_notes(1)))[0] == 80
    planning_and_three = ["Planning: ...", "Step 1: a", "Step 2: b", "Step 3: c"]
    assert reasoning_quality(_state(reasoning_steps=planning_and_three,
                                    reflection_notes=_notes(1)))[0] == 90
    assert reasoning_quality(_state(reasoning_steps=list("abcde"),
                                    reflection_notes=_notes(2)))[0] == 100


def test_tool_effectiveness():
    # 50 for any call; +30 for 3+, +20 for 2, +10 for 1; +20 structure and dependencies, +10 one
    assert tool_effectiveness(_state("What is 2 + 2?", "general", None))[0] == 0
    assert tool_effectiveness(_state(tool_usage=[_tool()]))[0] == 60
    assert tool_effectiveness(_state(tool_usage=[_tool(), _tool()],
                                     dependencies={"runtime": []}))[0] == 80
    four = [_tool("analyze_directory_structure"), _tool("extract_dependencies"),
            _tool("generate_architecture_map"), _tool("read_source_files")]
    assert tool_effectiveness(_state(tool_usage=four, repo_structure={"tree": "."},
                                     dependencies={"runtime": []}))[0] == 100
    assert tool_effectiveness(_state(repo_structure={"tree": "."},
                                     dependencies={"runtime": []}))[0] == 20


def test_reflection_section_and_quality():
    # the section: 15, +15 for 3+ critique words (addressing, critique, noted, added), +10 for 1+
    assert reflection_section(SHORT) == 0
    assert reflection_section(SECTION) == 30
    assert reflection_section("## Self-reflection impact\nI added tests.") == 25
    assert reflection_section("## How self-reflection improved\nIt is better.") == 15
    # 30 for any note; +30 for 3+, +20 for 2, +15 for 1; +40 for the section, else +20 when the
    # output says what it addressed
    assert reflection_quality(_state(final_output=SHORT))[0] == 0
    assert reflection_quality(_state(final_output=SHORT, reflection_notes=_notes(1)))[0] == 45
    assert reflection_quality(_state(final_output="I added the line numbers.",
                                     reflection_notes=_notes(1)))[0] == 65
    assert reflection_quality(_state(final_output=SHORT + SECTION,
                                     reflection_notes=_notes(2)))[0] == 90
    assert reflection_quality(_state(final_output=SHORT + SECTION,
                                     reflection_notes=_notes(3)))[0] == 100
    assert reflection_quality(_state(final_output=SHORT + SECTION))[0] == 40  # no notes


def test_the_kind_of_output_comes_from_the_task():
    assert output_kind(_state()) == "code_question"  # "where"
    assert output_kind(_state("Write a LinkedIn post", "generate_content")) == "linkedin_post"
    assert output_kind(_state("Analyze this repository", "analyze_repo")) == \
        "repository_analysis"
    assert output_kind(_state("Analyze it: which file is the entry?", "analyze_repo")) == \
        "code_question"
    assert output_kind(_state("What is 6 times 7?", "general", None)) == "general"


def test_output_quality_of_a_code_question():
    assert output_quality(_state(final_output=""))[0] == 0
    # a file path 10 + code (backticks) 10; no "line", no capital or "()", under 100 chars
    assert output_quality(_state(final_output=SHORT))[0] == 20
    assert 200 <= len(LONG) < 500
    # path 10 + line 10 + code 10 + identifiers 10 + 200+ characters 12 + "used in" 15
    assert output_quality(_state(final_output=LONG))[0] == 67
    assert output_quality(_state(final_output=LONG + SECTION))[0] == 97  # + the section's 30


def test_output_quality_of_a_post():
    post = ("Excited to share pyapp! \N{ROCKET}\n\nFeatures: inventory reports built with an "
            "agent and RAG.\n\n#python #inventory #cli\n\nCheck out the repo: 3 modules, "
            "25 tests.")
    # opening 10 + technical 10 + closing 10 + 3 hashtags 7 + 1 emoji 5 + 2 technical terms
    # (agent, rag) 15 + numbers 15
    state = _state("Write a LinkedIn post about this project", "generate_content",
                   final_output=post)
    assert output_quality(state)[0] == 72
    signed = {**state, "final_output": post + "\n\nP.S. self-reflection made it shorter."}
    assert output_quality(signed)[0] == 87


def test_output_quality_of_a_repository_analysis():
    report = ("# pyapp\n## Overview\nAn inventory tool [evidence: README.md].\n"
              "## Architecture\n- `Item` in pyapp/models.py:6 [evidence: pyapp/models.py:6]\n"
              "- `inventory_value()` sums totals\n## Dependencies\n- click==8.1.7\n")
    # 2 evidence tags 5 + 3 section words 15 + `:6` with symbols 10 + `==` 5 + Markdown 7
    # + lists 8
    analyze = _state("Analyze this repository", "analyze_repo", final_output=report)
    assert output_quality(analyze)[0] == 50
    tested = report + "- tests/test_report.py::test_value passes under pytest\n"
    # + test citations with :: 10 + a command word (pytest) 5
    assert output_quality({**analyze, "final_output": tested})[0] == 65
    vague = "An overview that may probably help."
    # no evidence tags -20 + overview 5 + 2 vague words -5: below 0, so 0
    assert output_quality({**analyze, "final_output": vague})[0] == 0


def test_output_quality_of_a_general_answer():
    general = _state("What is 6 times 7?", "general", None)
    assert output_quality({**general, "final_output": "42"})[0] == 40
    assert output_quality({**general, "final_output": "6 x 7 = 42.\nAnswer: 42"})[0] == 60
    prose = "Six times seven is forty-two: six groups of seven make 42, as 6 x 7 = 42. " * 2
    assert 100 <= len(prose) <= 2000
    assert output_quality({**general, "final_output": prose})[0] == 90
    assert output_quality({**general, "final_output": prose + SECTION})[0] == 100


def test_overall_is_the_weighted_mean():
    state = _state(final_output=SHORT, is_complete=True, iteration_count=1,
                   reasoning_steps=["Planning: ...", "Step 1: a", "Step 2: b", "Step 3: c"],
                   tool_usage=[_tool("generate_architecture_map"), _tool()],
                   reflection_notes=_notes(1))
    scores = score_run(state)
    got = {k: v["score"] for k, v in scores["metrics"].items()}
    assert got == {"task_completion": 100, "reasoning_quality": 90, "tool_effectiveness": 70,
                   "reflection_quality": 45, "output_quality": 20}
    # (100x35 + 90x25 + 70x15 + 45x10 + 20x15) / 100 = 75.5
    assert scores["overall"] == 75.5
    assert all(v["why"] for v in scores["metrics"].values())  # every point has its reason
    assert "grounding" not in scores  # reported beside, never folded in
