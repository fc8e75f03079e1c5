"""When the user turns the sandbox off, every agent run says so: on the terminal, in the run's
events and in --json (audit 2, item 1)."""

from __future__ import annotations

import json

import typer
import yaml
from typer.testing import CliRunner

from codeloop.agent.snapshots import init_repo
from codeloop.commands import agent_cmd
from codeloop.store import RunStore


def _run(tmp_path, env: dict[str, str]):
    app = typer.Typer()
    agent_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:
        """Nothing."""

    home = tmp_path / "proj"
    home.mkdir()
    (home / "a.py").write_text("a = 1\n")
    init_repo(home)
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(['{"thought": "t", "tool": "finish"}', '{"answer": "hi"}']))
    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(app, ["agent", "--home", str(home), "--model",
                                      f"scripted:{script}", "--store", str(store), "--json",
                                      "-p", "hi"], env=env)
    return result, store


def _notices(store, run_id: str) -> list[str]:
    with RunStore(store) as runs:
        return [e.message for _, e in runs.events(run_id)
                if e.type == "progress" and "sandbox is OFF" in e.message]


def test_sandbox_off_is_said_on_screen_in_events_and_json(tmp_path):
    result, store = _run(tmp_path, {"CODELOOP_UNSAFE_NO_SANDBOX": "true"})
    assert result.exit_code == 0, result.output
    assert "sandbox is OFF" in result.stderr
    data = json.loads(result.stdout)
    assert data["sandboxed"] is False
    assert len(_notices(store, data["run_id"])) == 1


def test_a_sandboxed_run_says_nothing_of_the_kind(tmp_path):
    result, store = _run(tmp_path, {"CODELOOP_UNSAFE_NO_SANDBOX": "false"})
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["sandboxed"] is True and "sandbox is OFF" not in result.stderr
    assert _notices(store, data["run_id"]) == []
