"""A solve run that ran no test is never "correct": examples that do not call the function
are not dropped silently; the verdict is "Code is untested" with the reason, in the
terminal, in --json (exit code 3) and in the run store (status "untested")."""

from __future__ import annotations

import json

import pytest
import typer
import yaml
from typer.testing import CliRunner

from codeloop.commands import solve_cmd
from codeloop.store import RunStore

VOWELS = ("```python\ndef count_vowels(s: str) -> int:\n"
          "    return sum(1 for ch in s.lower() if ch in 'aeiou')\n```")
# Examples written for another name: none of them calls count_vowels.
STRAY = {"task_id": "count_vowels", "signature": "def count_vowels(s: str) -> int",
         "docstring": "Count the vowels in s.",
         "examples": "vowels('Hello') == 2\nassert countVowels('sky') == 0"}


@pytest.fixture
def cli(tmp_path):
    app = typer.Typer()

    @app.callback()
    def _root() -> None:  # keeps `solve` a subcommand, as in the real app
        pass

    solve_cmd.register(app)

    def invoke(task: dict, replies: list[str], *args: str):
        tasks = tmp_path / "tasks.json"
        tasks.write_text(json.dumps([task]))
        script = tmp_path / "script.yaml"
        script.write_text(yaml.safe_dump(replies))
        return CliRunner().invoke(app, ["solve", "--task-file", str(tasks), "--model",
                                        f"scripted:{script}", "--store",
                                        str(tmp_path / "runs.sqlite"), *args],
                                  env={"COLUMNS": "200"})

    return invoke


def test_examples_that_never_call_the_function_make_an_untested_verdict(cli, tmp_path):
    result = cli(STRAY, [VOWELS], "--json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "Code is untested" and data["passed"] is False
    reason = data["untested_reason"]
    assert reason.startswith("no example calls count_vowels; 2 examples dropped:")
    assert "vowels('Hello') == 2" in reason and "countVowels('sky') == 0" in reason
    assert data["exec_result"]["total"] == 0
    assert data["refinement_count"] == 0  # nothing failed: no round is spent on it
    with RunStore(tmp_path / "runs.sqlite") as runs:
        record = runs.get_run(data["run_id"])
    assert (record.status, record.outcome) == ("succeeded", "untested")
    assert record.result["verdict"] == "Code is untested"


def test_the_terminal_says_untested_and_why(cli):
    result = cli(STRAY, [VOWELS])
    assert result.exit_code == 3, result.output
    out = " ".join(result.output.split())
    assert "Code is correct" not in out
    assert "Code is untested" in out
    assert "untested: no example calls count_vowels; 2 examples dropped" in out


def test_a_task_with_no_examples_at_all_is_untested_too(cli):
    bare = {k: v for k, v in STRAY.items() if k != "examples"}
    result = cli(bare, [VOWELS], "--json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "Code is untested"
    assert data["untested_reason"].startswith("the task has no examples and no test file")


def test_a_dropped_example_beside_a_real_one_is_named_not_hidden(cli):
    mixed = {**STRAY, "examples": "count_vowels('Hello') == 2\nvowels('sky') == 0"}
    result = cli(mixed, [VOWELS], "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "Code is correct" and data["exec_result"]["total"] == 1
    assert data["untested_reason"] == ""
    assert any("does not call count_vowels" in w and "vowels('sky') == 0" in w
               for w in data["review"]["warnings"])
