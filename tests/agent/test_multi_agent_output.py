"""`codeloop agent --multi-agent` through the CLI on the scripted model: the plan, the
implementer's report and the validator's verdict are in the terminal and in --json (they were
only in the run's events), each round's, and in the run store's result."""

from __future__ import annotations

import json

import typer
import yaml
from agent_replies import act, script
from typer.testing import CliRunner

from codeloop.commands import agent_cmd
from codeloop.paths import default_store_path
from codeloop.store import RunStore

PLAN = {"analysis": "A module with greet(name) is needed.",
        "files_to_create": ["greet.py"], "files_to_modify": [],
        "steps": [{"seq": 1, "action": "create", "file": "greet.py",
                   "details": "greet(name) returns 'hi ' + name"},
                  {"seq": 2, "action": "test", "file": "greet.py",
                   "details": "check greet('bo') gives 'hi bo'"}],
        "considerations": ["keep it to one function"]}
WRONG = "def greet(name):\n    return 'hello ' + name\n"
RIGHT = "def greet(name):\n    return 'hi ' + name\n"


def _app() -> typer.Typer:
    app = typer.Typer()
    agent_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the group
        """Nothing."""

    return app


def _file(path: str, text: str) -> str:
    return f"FILE: {path}\n```python\n{text}```\n"


def _run(tmp_path, *args: str):
    home = tmp_path / "proj"
    home.mkdir()
    replies = script(
        act("finish", **PLAN),
        _file("greet.py", WRONG),  # the implementer's context-first edit
        act("finish", status="needs_fixes", changes_summary="greet.py says hello",
            quality_score=4.0, issues=["greet says 'hello', the plan says 'hi'"],
            fix_instructions="Return 'hi ' + name."),
        _file("greet.py", RIGHT),
        act("finish", status="approved", changes_summary="greet.py added with greet(name)",
            quality_score=9.0, issues=[], fix_instructions=""),
    )
    model = tmp_path / "script.yaml"
    model.write_text(yaml.safe_dump(replies))
    return CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model",
                                       f"scripted:{model}", "--multi-agent", "-p",
                                       "Add greet.py with greet(name)", *args])


def test_the_terminal_shows_the_plan_each_report_and_each_verdict(tmp_path):
    result = _run(tmp_path)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "Plan: A module with greet(name) is needed." in out
    assert "1. create greet.py: greet(name) returns 'hi ' + name" in out
    assert "2. test greet.py: check greet('bo') gives 'hi bo'" in out
    assert "keep it to one function" in out
    assert "Implementation, round 1: success; created greet.py" in out
    assert "Implementation, round 2: success; modified greet.py" in out
    assert ("Validation, round 1: needs_fixes (quality 4.0/10): greet.py says hello" in out)
    assert "greet says 'hello', the plan says 'hi'" in out and "Return 'hi ' + name." in out
    assert "Validation, round 2: approved (quality 9.0/10): greet.py added with greet(name)" in out
    # In the order they happened, before the turn's end.
    assert (out.index("Plan:") < out.index("Implementation, round 1")
            < out.index("Validation, round 1") < out.index("Implementation, round 2")
            < out.index("Validation, round 2") < out.index("approved: greet.py added"))


def test_json_carries_the_plan_the_reports_and_the_verdicts(tmp_path):
    result = _run(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["status"] == "approved" and data["rounds"] == 2
    assert [s["file"] for s in data["plan"]["steps"]] == ["greet.py", "greet.py"]
    assert data["plan"]["analysis"] == "A module with greet(name) is needed."
    assert [(r["status"], r["files_created"], r["files_modified"])
            for r in data["implementations"]] == [("success", ["greet.py"], []),
                                                   ("success", [], ["greet.py"])]
    assert [v["status"] for v in data["validations"]] == ["needs_fixes", "approved"]
    assert data["validations"][0]["fix_instructions"] == "Return 'hi ' + name."
    assert data["validations"][1]["changes_summary"] == "greet.py added with greet(name)"
    with RunStore(default_store_path()) as store:  # and the run's record keeps them
        [run] = store.list_runs("agent")
        assert run.result["plan"] == data["plan"]
        assert run.result["validations"] == data["validations"]


def test_model_text_in_the_reports_is_shown_as_text_not_markup(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    plan = {**PLAN, "analysis": "[bold red]x[/] \x1b[2J cleared"}
    replies = script(act("finish", **plan), _file("greet.py", RIGHT),
                     act("finish", status="approved", changes_summary="[link=x]ok[/link]",
                         quality_score=9.0, issues=[], fix_instructions=""))
    model = tmp_path / "script.yaml"
    model.write_text(yaml.safe_dump(replies))
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model",
                                         f"scripted:{model}", "--multi-agent", "-p", "Add it"])
    assert result.exit_code == 0, result.output
    assert "[bold red]x[/]" in result.output and "[link=x]ok[/link]" in result.output
    assert "\x1b" not in result.output
