"""`codeloop ask` end to end with a scripted model file: one question (text and --json), the
no-model report, bad input as one line with exit code 2, and the REPL's /history, /stats,
/quit. And the task-type rules."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from codeloop.ask.task_type import by_rules
from codeloop.cli import app
from codeloop.store import RunStore

ANSWER = ("`inventory_value` adds up `item.total()` for every item (pyapp/report.py:6-8).")


def _script(tmp_path, *extra):
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump([
        {"match": "Plan how to complete", "json": {"steps": ["Find it", "Read it", "Say it"]}},
        {"match": "Code from the repository", "reply": ANSWER},
        {"match": "Answer clearly and briefly", "reply": "6 x 7 = 42\nAnswer: 42"},
        *extra]))
    return f"scripted:{path}"


def _invoke(args, **kwargs):
    return CliRunner().invoke(app, ["ask", *args], **kwargs)


def test_one_question_as_json(pyapp, tmp_path):
    store = tmp_path / "runs.db"
    result = _invoke(["Where is the inventory value computed?", "--repo", str(pyapp),
                      "--model", _script(tmp_path), "--json", "--store", str(store)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["task_type"] == "answer_question"
    assert data["final_output"] == ANSWER
    assert data["grounding"]["rate"] == 1.0
    assert set(data["evaluation_scores"]["metrics"]) == {
        "task_completion", "reasoning_quality", "tool_effectiveness", "reflection_quality",
        "output_quality"}
    assert RunStore(store).get_run(data["run_id"]).status == "succeeded"


def test_the_score_panel_and_grounding_are_shown(pyapp, tmp_path):
    result = _invoke(["Where is the inventory value computed?", "--repo", str(pyapp),
                      "--model", _script(tmp_path), "--store", str(tmp_path / "r.db")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Task type: answer_question (by rules)" in out
    for label in ("Task completion", "Reasoning quality", "Tool effectiveness",
                  "Reflection quality", "Output quality", "Overall"):
        assert label in out
    assert "Grounding: 1/1 citations grounded (100%), 1 exist" in out


def test_no_model_analysis(pyapp, tmp_path):
    result = _invoke(["Analyze this repository", "--repo", str(pyapp), "--no-model", "--json",
                      "--store", str(tmp_path / "r.db")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["output_source"] == "template" and data["totals"]["calls"] == 0
    assert "## Entry points\n- pyapp/cli.py (main: __main__)" in data["final_output"]


@pytest.mark.parametrize(("args", "message"), [
    (["", "--repo", "."], "the question is empty"),
    (["What?", "--repo", "/no/such/dir"], "does not exist"),
    (["What?", "--repo", "/etc/hostname"], "is not a directory"),
    (["What?", "--type", "poem"], "unknown task type 'poem'"),
    (["Analyze it", "--type", "analyze_repo"], "needs a repository"),
    (["What is 2+2?", "--no-model"], "a general task needs a model"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    store = tmp_path / "r.db"
    result = _invoke([*args, "--store", str(store)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2
    assert not store.exists() or RunStore(store).count_runs("ask") == 0


def test_a_binary_only_repository(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "blob.bin").write_bytes(b"\x00" * 64)
    result = _invoke(["What is here?", "--repo", str(tmp_path / "repo"), "--no-model"])
    assert result.exit_code == 2 and "no readable text files (1 binary)" in result.output


def test_the_repl_keeps_history_and_stats(pyapp, tmp_path):
    lines = ("What is 6 times 7?\n/history\n\n/stats\n/nope\n"
             "Where is the inventory value computed?\n/stats\n/quit\nnever asked\n")
    result = _invoke(["--repo", str(pyapp), "--model", _script(tmp_path),
                      "--store", str(tmp_path / "r.db")], input=lines)
    assert result.exit_code == 0, result.output
    out = result.output
    # arithmetic ("times"), even with a repository: general, answered without the tools
    assert "1. [general] What is 6 times 7? -> score" in out
    assert "1 queries (0 failed)" in out and "2 queries (0 failed)" in out
    assert "unknown command /nope" in out
    assert "never asked" not in out.split("/quit")[-1]
    assert RunStore(tmp_path / "r.db").count_runs("ask") == 2


def test_the_repl_goes_on_after_a_failed_question(tmp_path):
    lines = "What is 6 times 7?\n/stats\n"  # end of input ends the REPL
    result = _invoke(["--model", f"scripted:{tmp_path / 'empty.yaml'}",
                      "--store", str(tmp_path / "r.db")], input=lines)
    assert result.exit_code == 2  # the script file is missing: one line, before the REPL
    (tmp_path / "empty.yaml").write_text("[]\n")
    result = _invoke(["--model", f"scripted:{tmp_path / 'empty.yaml'}",
                      "--store", str(tmp_path / "r.db")], input=lines)
    assert result.exit_code == 0
    assert "script exhausted" in result.output
    assert "0 queries (1 failed)" in result.output


@pytest.mark.parametrize(("task", "has_repo", "expected"), [
    ("Analyze this repository", True, "analyze_repo"),
    ("Give me an overview of the project architecture", True, "analyze_repo"),
    ("Where are model replies parsed into code?", True, "answer_question"),
    ("list the runtime dependencies", True, "answer_question"),
    ("Write a LinkedIn post about this project", True, "generate_content"),
    ("Draft an announcement email for the release", False, "generate_content"),
    ("What is 12 * 7?", False, "general"),
    ("What is 12 * 7?", True, "general"),  # arithmetic, even with a repository
    ("calculate the derivative of x^2", False, "general"),
    ("inventory valuation", True, None),  # the model decides
    ("Where is the config parsed?", False, "general"),  # no repository: no repository types
    # arithmetic only when the request is essentially an expression
    ("What is 3 times 4?", True, "general"),
    ("What is 100 divided by 4?", True, "general"),
    ("what is 10 minus 3", True, "general"),
    ("What is 10 - 3?", True, "general"),  # '-' with spaces: a minus
    ("compute (2 + 3) ** 2", True, "general"),
    ("12 x 7 =", True, "general"),
    ("What does pyapp/report.py do on lines 6-8?", True, "answer_question"),
    ("Which function parses the 2024-01-01 date format?", True, "answer_question"),
    ("What is 2024-01-01?", True, "answer_question"),  # a date, not two subtractions
    ("Where is a * b computed in utils/calc.py?", True, "answer_question"),
    ("What is max(3, 4) in pyapp/util.py?", True, "answer_question"),
    ("Explain lines 10-20 of pyapp/report.py", True, None),  # the model decides
])
def test_task_type_rules(task, has_repo, expected):
    assert by_rules(task, has_repo) == expected
