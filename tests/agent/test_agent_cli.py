"""`codeloop agent` end to end with a scripted model file: -p, --json, the REPL commands,
--multi-agent, and git initialisation of a plain directory."""

from __future__ import annotations

import json

import typer
import yaml
from agent_replies import act, finish, script
from typer.testing import CliRunner

from codeloop.commands import agent_cmd
from codeloop.paths import default_store_path
from codeloop.store import RunStore

FACT = "def factorial(n):\n    return 1 if n <= 1 else n * factorial(n - 1)\n"


def _app():
    app = typer.Typer()
    agent_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the group
        """Nothing."""

    return app


def _script(tmp_path, replies):
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump(script(*replies)))
    return f"scripted:{path}"


def test_one_request_in_a_plain_directory(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    (home / "notes.txt").write_text("hello\n")
    model = _script(tmp_path, [
        act("write_file", path="factorial.py", content=FACT, start_line=None, end_line=None),
        finish("Created factorial.py"),
    ])
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model", model,
                                         "--tools-only", "-p", "Create factorial.py"])
    assert result.exit_code == 0, result.output
    assert "not a git repository: initialising one" in result.output
    assert "→ write_file" in result.output and "Created factorial.py" in result.output
    assert "added    factorial.py (+2 -0)" in result.output
    assert "(succeeded: done; 1 steps" in result.output  # the run's status and outcome
    assert (home / ".git").is_dir() and (home / "factorial.py").read_text() == FACT
    with RunStore(default_store_path()) as store:
        runs = store.list_runs("agent")
        assert len(runs) == 1 and runs[0].status == "succeeded"
        assert [e.type for _, e in store.events(runs[0].id)].count("tool_call") == 1


def test_json_output_and_exit_code_when_stopped(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    model = _script(tmp_path, [act("list_files", path=".", pattern=f"*{i}") for i in range(3)])
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model", model,
                                         "--max-steps", "2", "--json", "-p", "loop"])
    assert result.exit_code == 1
    data = json.loads(result.stdout[result.stdout.index("{"):])
    assert data["status"] == "step_cap" and data["steps"] == 2
    assert (data["run_status"], data["outcome"]) == ("failed", "step cap")


def test_repl_commands_and_undo(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    model = _script(tmp_path, [
        act("write_file", path="factorial.py", content=FACT, start_line=None, end_line=None),
        finish("Created factorial.py"),
    ])
    lines = "Create factorial.py\n/history\n/threads\n/undo\n/bogus\n/new side\n/history\n/quit\n"
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model", model,
                                         "--tools-only", "--thread", "feature-x"], input=lines)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "you (turn 1): Create factorial.py" in out
    assert "agent (turn 1): Created factorial.py" in out
    assert "feature-x" in out
    assert "Reverted turn 1" in out and "deleted factorial.py" in out
    assert not (home / "factorial.py").exists()
    assert "Unknown command /bogus" in out
    assert "New thread: side" in out and "This thread is empty." in out


def test_thread_continues_in_a_new_process(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    first = _script(tmp_path, [finish("Plan: add greet.py. OK?")])
    CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model", first,
                                "--thread", "t", "-p", "plan a greeter"])
    second = _script(tmp_path, [finish("Done as planned.")])
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model", second,
                                         "--thread", "t"], input="yes, do it\n/history\n")
    assert result.exit_code == 0, result.output
    history = result.output[result.output.index("you (turn 1)"):]
    assert "you (turn 1): plan a greeter" in history
    assert "agent (turn 1): Plan: add greet.py. OK?" in history
    assert "you (turn 2): yes, do it" in history and "agent (turn 2): Done as planned." in history


def test_multi_agent_flag(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    plan = {"analysis": "a", "files_to_create": ["m.py"], "files_to_modify": [],
            "steps": [{"seq": 1, "action": "create", "file": "m.py", "details": "x"}],
            "considerations": []}
    model = _script(tmp_path, [
        act("finish", **plan),
        act("write_file", path="m.py", content="X = 1\n", start_line=None, end_line=None),
        act("finish", status="success", files_created=["m.py"], files_modified=[],
            linting_results=[]),
        act("finish", status="approved", changes_summary="m.py added", quality_score=10,
            issues=[], fix_instructions=""),
    ])
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--model", model,
                                         "--multi-agent", "-p", "Add m.py"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("[PLANNING]") < out.index("[IMPLEMENTATION]") < out.index("[VALIDATION]")
    assert "approved: m.py added" in out and "added    m.py" in out


def test_bad_home_is_a_clean_error(tmp_path):
    result = CliRunner().invoke(_app(), ["agent", "--home", str(tmp_path / "missing"),
                                         "-p", "x", "--model", "scripted:/nonexistent.yaml"])
    assert result.exit_code == 2 and "not a directory" in result.output
