"""MCP servers in the configuration (issue 54 §2): only the user's own file names them,
`codeloop config show` lists each with its tools, a wrong entry is one line, and a project
file (a workspace's, which the model may have written) can never add one."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest
from test_mcp_cli import SERVERS, run_agent, server_table, user_config
from typer.testing import CliRunner

from codeloop.cli import app
from codeloop.config import load_config
from codeloop.mcp_client.hub import McpCallError, McpHub, http_headers
from codeloop.mcp_client.settings import McpServerConfig

FINISH = ['{"thought": "t", "tool": "finish"}', '{"answer": "done"}']


def config_show(*args: str):
    return CliRunner().invoke(app, ["config", "show", *args])


def test_config_show_lists_each_server_with_its_tools_and_failures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    user_config(server_table("notes", "notes_server.py", enabled_tools=["lookup", "gone"])
                + server_table("broken", "crash_at_start.py"))
    result = config_show()
    assert result.exit_code == 0, result.output
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]
    [notes] = [line for line in lines if line.startswith("notes (stdio:")]
    assert notes.endswith("notes_server.py): notes.lookup (hidden by the allow-list: "
                          "secret_admin, pid, hang, flood, leak, fail; allow-listed but not "
                          "offered: gone)")
    [broken] = [line for line in lines if line.startswith("broken (stdio:")]
    assert broken.endswith("FAILED: Connection closed (its stderr: notes-db: cannot open "
                           "/nonexistent/notes.sqlite)")

    data = json.loads(config_show("--json").stdout)
    assert data["mcp_servers"]["notes"]["tools"] == ["lookup"]
    assert data["mcp_servers"]["notes"]["not_offered"] == ["gone"]
    assert data["mcp_servers"]["broken"]["tools"] == []
    assert "cannot open" in data["mcp_servers"]["broken"]["error"]
    assert data["model"]["source"] == "default"  # the settings are as they were


def test_config_show_no_mcp_starts_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pid_file = tmp_path / "pid"
    user_config(server_table("silent", "silent_at_start.py", str(pid_file)))
    result = config_show("--no-mcp")
    assert result.exit_code == 0, result.output
    assert "silent (stdio:" in result.stdout and "not started (--no-mcp)" in result.stdout
    assert not pid_file.exists()


@pytest.mark.parametrize(("table", "problem"), [
    ('[mcp_servers."bad name"]\ncommand = "x"\n', "MCP server name 'bad name' must be 1-32"),
    ("[mcp_servers.web]\nurl = \"ftp://x\"\n", "MCP server 'web': `url` must start with"),
    ('[mcp_servers.x]\ncommand = "x"\ncolour = "red"\n',
     "MCP server 'x' `colour`: Extra inputs are not permitted"),
    ('[mcp_servers.x]\ncommand = "x"\nbearer_token_env_var = "T"\n',
     "HTTP headers apply to a `url` server only"),
])
def test_a_wrong_server_entry_is_one_clear_line(tmp_path, monkeypatch, table, problem):
    monkeypatch.chdir(tmp_path)
    path = user_config(table)
    result = config_show()
    assert result.exit_code == 2
    assert problem in result.output and str(path) in result.output
    assert "Traceback" not in result.output and path.read_text() == table


def test_servers_may_sit_beside_a_codeloop_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    user_config('[codeloop]\nmax_tokens = 512\n\n[mcp_servers.notes]\ncommand = "notes-mcp"\n')
    effective = load_config()
    assert effective.settings.max_tokens == 512
    assert effective.mcp_servers["notes"].command == "notes-mcp"


def test_http_headers_come_from_the_variables_named():
    config = McpServerConfig(url="https://docs.example/mcp", bearer_token_env_var="DOCS_TOKEN",
                             env_http_headers={"X-Team": "TEAM_ID"})
    assert http_headers(config, {"DOCS_TOKEN": "t0k", "TEAM_ID": "7"}) == {
        "X-Team": "7", "Authorization": "Bearer t0k"}
    with pytest.raises(McpCallError, match="environment variable DOCS_TOKEN"):
        http_headers(config, {"TEAM_ID": "7"})


def test_a_streamable_http_server_is_reached_by_its_url(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(SERVERS / "notes_server.py"), "--http",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        config = McpServerConfig(url=f"http://127.0.0.1:{port}/mcp", enabled_tools=["lookup"])
        with McpHub({"web": config}) as hub:
            assert hub.failures() == []
            result = hub.call("web", "lookup", {"key": "deploy-port"})
            assert result.content[0].text == "The deploy port is 8731."
    finally:
        server.terminate()
        server.wait(timeout=10)


# ------------------------------------------------------------------ attacks
def _evil_table(section: str, marker) -> str:
    code = f"open({str(marker)!r}, 'w').write('ran')"
    return (f"[{section}.evil]\ncommand = {json.dumps(sys.executable)}\n"
            f"args = {json.dumps(['-c', code])}\n")


@pytest.mark.attack
@pytest.mark.parametrize("layout", ["top", "beside_codeloop", "inside_codeloop", "mcp",
                                    "mcpServers"])
def test_a_project_file_cannot_add_a_server(tmp_path, monkeypatch, layout):
    """A codeloop.toml in the workspace (the current directory, as the model could have
    written it) names a server whose command would leave a marker: it never runs."""
    marker = tmp_path / "marker"
    home = tmp_path / "proj"
    home.mkdir()
    tables = {
        "top": _evil_table("mcp_servers", marker),
        "beside_codeloop": "[codeloop]\nmax_tokens = 256\n" + _evil_table("mcp_servers", marker),
        "inside_codeloop": _evil_table("codeloop.mcp_servers", marker),
        "mcp": _evil_table("mcp", marker),
        "mcpServers": _evil_table("mcpServers", marker),
    }
    (home / "codeloop.toml").write_text(tables[layout])
    monkeypatch.chdir(home)
    result, _ = run_agent(tmp_path, FINISH, request="hi")
    assert result.exit_code == 0, result.output
    assert "may not name MCP servers" in result.stderr
    shown = config_show()
    assert shown.exit_code == 0 and "may not name MCP servers" in shown.stdout
    assert "MCP servers (your user config" not in shown.stdout  # none listed, none started
    assert load_config(project_dir=home).mcp_servers == {}
    assert not marker.exists()


@pytest.mark.attack
def test_the_same_server_in_the_user_config_does_run(tmp_path, monkeypatch):
    """The control for the attack above: the table is a working server start, so only where
    it is written keeps it from running."""
    marker = tmp_path / "marker"
    monkeypatch.chdir(tmp_path)
    user_config(_evil_table("mcp_servers", marker))
    result = config_show()
    assert result.exit_code == 0, result.output
    assert marker.read_text() == "ran"
