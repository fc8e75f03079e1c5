"""An agent run started through the API gets the MCP servers of the user's own config, as
`codeloop agent` does, and stops them when the run ends; a workspace's codeloop.toml cannot add
one; a wrong entry in the user's config is a one-line 400 and no run (issue 54 §2). A real MCP
server subprocess (tests/fixtures/mcp_servers/notes_server.py), scripted model, real store."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from server_kit import served, start, wait_status, write_script

from codeloop.agent.snapshots import init_repo
from codeloop.store import RunStore

NOTES = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers" / "notes_server.py"
ENDED = {"succeeded", "failed", "cancelled", "interrupted"}


def _server_table(name: str = "notes") -> str:
    return (f"[mcp_servers.{name}]\ncommand = {json.dumps(sys.executable)}\n"
            f"args = {json.dumps([str(NOTES)])}\nenabled_tools = [\"lookup\", \"pid\"]\n")


def _user_config(text: str) -> Path:
    path = Path(os.environ["CODELOOP_CONFIG_DIR"]) / "codeloop.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _workspace(root: Path) -> Path:
    home = root / "proj"
    home.mkdir()
    (home / "a.py").write_text("a = 1\n")
    init_repo(home)
    return home


def _replies() -> list[str]:
    return ['{"thought": "which process", "tool": "notes.pid"}', "{}",
            '{"thought": "ask the notes", "tool": "notes.lookup"}',
            '{"key": "owner", "upper": null}',
            '{"thought": "t", "tool": "finish"}', '{"answer": "The owner is Ada."}']


def _tool_calls(root: Path, run_id: str) -> dict:
    with RunStore(root / "runs.sqlite") as runs:
        return {e.tool: e for _, e in runs.events(run_id) if e.type == "tool_call"}


def test_an_api_agent_run_uses_the_user_servers_and_stops_them(tmp_path):
    _user_config(_server_table())
    _workspace(tmp_path)
    spec = write_script(tmp_path, _replies())
    with served(tmp_path) as client:
        run_id = start(client, "agent", {"workspace": "proj", "model": spec,
                                         "request": "Who owns the project?"})
        detail = wait_status(client, run_id, ENDED)
        assert detail["status"] == "succeeded", detail
        assert detail["result"]["answer"] == "The owner is Ada."
    calls = _tool_calls(tmp_path, run_id)
    assert calls["notes.lookup"].ok and calls["notes.lookup"].result == "The owner is Ada."
    assert not Path(f"/proc/{int(calls['notes.pid'].result)}").exists()  # stopped with the run


@pytest.mark.attack
def test_a_workspace_config_cannot_give_the_api_agent_a_server(tmp_path):
    home = _workspace(tmp_path)
    (home / "codeloop.toml").write_text(_server_table())
    spec = write_script(tmp_path, _replies())
    with served(tmp_path) as client:
        run_id = start(client, "agent", {"workspace": "proj", "model": spec,
                                         "request": "Who owns the project?"})
        wait_status(client, run_id, ENDED)
    with RunStore(tmp_path / "runs.sqlite") as runs:
        recorded = [e for _, e in runs.events(run_id)]
    assert not [e for e in recorded if e.type == "tool_call"]  # no server's tool ever ran
    refused = [e.message for e in recorded if e.type == "progress"]
    assert any("'notes.pid' is not one of" in m and "'notes.pid'" not in m.split("one of")[1]
               for m in refused), refused


def test_a_wrong_user_server_entry_is_a_400_and_no_run(tmp_path):
    _user_config('[mcp_servers.both]\ncommand = "python"\nurl = "http://x/mcp"\n')
    _workspace(tmp_path)
    spec = write_script(tmp_path, _replies())
    with served(tmp_path) as client:
        response = client.post("/api/runs", json={"job": "agent", "params": {
            "workspace": "proj", "model": spec, "request": "Who owns the project?"}})
        assert response.status_code == 400, response.text
        assert "MCP server 'both'" in response.json()["detail"]
        assert client.get("/api/runs").json()["runs"] == []
