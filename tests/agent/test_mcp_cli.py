"""`codeloop agent` with MCP servers in the user's config, end to end through the CLI: the
agent calls a server's tool, servers that fail are one line each and the turn goes on, and
every server process is gone when the command returns (issue 54 §2)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import typer
import yaml
from typer.testing import CliRunner

from codeloop.agent.snapshots import init_repo
from codeloop.commands import agent_cmd
from codeloop.store import RunStore

SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"


def _toml_list(items: list[str]) -> str:
    return json.dumps(items)  # a JSON list of strings is a TOML array


def user_config(text: str) -> Path:
    """Write the user's own codeloop.toml (conftest points CODELOOP_CONFIG_DIR at a temp dir)."""
    path = Path(os.environ["CODELOOP_CONFIG_DIR"]) / "codeloop.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def server_table(name: str, script: str, *extra_args: str, **keys) -> str:
    lines = [f"[mcp_servers.{name}]", f"command = {json.dumps(sys.executable)}",
             f"args = {_toml_list([str(SERVERS / script), *extra_args])}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n"


def run_agent(tmp_path: Path, replies: list[str], request: str = "Who owns the project?"):
    app = typer.Typer()
    agent_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:
        """Nothing."""

    home = tmp_path / "proj"
    home.mkdir(exist_ok=True)
    (home / "a.py").write_text("a = 1\n")
    init_repo(home)
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(replies))
    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(app, ["agent", "--home", str(home), "--model",
                                      f"scripted:{script}", "--store", str(store), "--json",
                                      "--tools-only", "-p", request])
    return result, store


def events(store: Path, run_id: str):
    with RunStore(store) as runs:
        return [e for _, e in runs.events(run_id)]


def test_the_agent_uses_a_server_of_the_user_config_and_stops_every_one(tmp_path):
    pid_file = tmp_path / "silent.pid"
    user_config(server_table("notes", "notes_server.py", enabled_tools=["lookup", "pid"])
                + server_table("broken", "crash_at_start.py")
                + server_table("silent", "silent_at_start.py", str(pid_file),
                               startup_timeout_sec=1.5))
    replies = ['{"thought": "which process", "tool": "notes.pid"}', "{}",
               '{"thought": "ask the notes", "tool": "notes.lookup"}',
               '{"key": "owner", "upper": null}',
               '{"thought": "t", "tool": "finish"}', '{"answer": "The owner is Ada."}']
    result, store = run_agent(tmp_path, replies)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["status"] == "finished" and data["answer"] == "The owner is Ada."
    recorded = events(store, data["run_id"])
    calls = {e.tool: e for e in recorded if e.type == "tool_call"}
    assert calls["notes.lookup"].ok and calls["notes.lookup"].result == "The owner is Ada."
    notes = [e.message for e in recorded if e.type == "progress" and "MCP server" in e.message]
    assert notes == [
        ("MCP server 'broken' is not available: Connection closed (its stderr: notes-db: "
         "cannot open /nonexistent/notes.sqlite)"),
        "MCP server 'silent' is not available: did not start within 1.5 s"]
    assert result.stderr.count("MCP server 'broken' is not available") == 1
    # No server outlives the command: the one that answered, the one that never spoke.
    server_pid = int(calls["notes.pid"].result)
    assert not Path(f"/proc/{server_pid}").exists()
    assert pid_file.exists() and not Path(f"/proc/{pid_file.read_text()}").exists()


def test_a_bad_server_entry_is_one_line_and_nothing_starts(tmp_path):
    path = user_config('[mcp_servers.both]\ncommand = "python"\nurl = "http://x/mcp"\n')
    before = path.read_text()
    result, _ = run_agent(tmp_path, ['{"thought": "t", "tool": "finish"}', '{"answer": "hi"}'])
    assert result.exit_code == 2
    assert (f"{path}: MCP server 'both': give either `command` (stdio) or `url` (HTTP), not "
            "both or none") in result.output
    assert path.read_text() == before

