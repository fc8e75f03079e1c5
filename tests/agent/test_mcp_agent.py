"""The agent uses the tools of MCP servers (issue 54 §2): a real MCP server written with the
SDK (tests/fixtures/mcp_servers/notes_server.py) runs as a subprocess; the scripted model
calls its tools through the agent's tool loop and reads their results."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from agent_replies import act, action_prompts, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits
from codeloop.mcp_client.hub import McpHub
from codeloop.mcp_client.settings import McpServerConfig
from codeloop.mcp_client.tools import mcp_tools
from codeloop.tools.toolbox import MAX_OBSERVATION_CHARS

SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"
NOTES_TOOLS = ["lookup", "pid", "hang", "flood", "leak", "fail"]  # not secret_admin


def notes_server(**overrides) -> McpServerConfig:
    fields = {"command": sys.executable, "args": [str(SERVERS / "notes_server.py")],
              "enabled_tools": NOTES_TOOLS, **overrides}
    return McpServerConfig(**fields)


@pytest.fixture
def hub():
    with McpHub({"notes": notes_server(tool_timeout_sec=2)}) as started:
        yield started


def _session(llm, repo, store, snapshots, hub, bus=None):
    spec = agent_spec("single", repo, limits=AgentLimits(), bus=bus, extra_tools=mcp_tools(hub))
    return AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                        thread="t1", bus=bus, context_first=False)


def _observation(llm, step: int) -> str:
    """What the model was shown after its `step`-th action (0-based)."""
    return action_prompts(llm)[step + 1][-1].content


def test_the_agent_calls_an_mcp_tool_and_uses_its_result(repo, store, snapshots, hub, events):
    bus, recorder = events
    llm = scripted(act("notes.lookup", key="deploy-port", upper=None),
                   finish("The deploy port is 8731."))
    result = _session(llm, repo, store, snapshots, hub, bus).ask("Which port do we deploy on?")
    assert result.status == "finished" and result.answer == "The deploy port is 8731."
    system = action_prompts(llm)[0][0].content
    assert "notes.lookup(key: string, upper: boolean = null): Look up a team note" in system
    assert "Observation (notes.lookup):\nThe deploy port is 8731." in _observation(llm, 0)
    [call] = recorder.of_type("tool_call")
    assert (call.tool, call.ok, call.arguments) == ("notes.lookup", True, {"key": "deploy-port"})


def test_the_allow_list_hides_a_tool(repo, store, snapshots, hub):
    spec = agent_spec("single", repo, extra_tools=mcp_tools(hub))
    assert "notes.lookup" in spec.toolbox.names
    assert "notes.secret_admin" not in spec.toolbox.names
    assert "secret_admin" not in spec.system_prompt
    outcome = spec.toolbox.run("notes.secret_admin", {"command": "rm -rf /"})
    assert not outcome.ok and "there is no tool 'notes.secret_admin'" in outcome.output
    assert hub.statuses["notes"].hidden == ["secret_admin"]


def test_a_hanging_tool_is_one_line_and_the_turn_goes_on(repo, store, snapshots, hub):
    llm = scripted(act("notes.hang", seconds=None), act("notes.lookup", key="owner", upper=None),
                   finish("The owner is Ada."))
    started = time.monotonic()
    result = _session(llm, repo, store, snapshots, hub).ask("Who owns the project?")
    assert result.status == "finished"
    assert time.monotonic() - started < 30
    hung = _observation(llm, 0)
    assert ("Error: MCP server 'notes' did not answer hang within 2 s; the call was "
            "abandoned") in hung
    assert "The owner is Ada." in _observation(llm, 1)  # the same server still answers


def test_a_10_mb_result_is_cut_with_a_note(repo, store, snapshots, events):
    bus, recorder = events
    with McpHub({"notes": notes_server(tool_timeout_sec=60)}) as big:
        llm = scripted(act("notes.flood", megabytes=None), finish("Too big."))
        result = _session(llm, repo, store, snapshots, big, bus).ask("Get the flood")
    assert result.status == "finished"
    shown = _observation(llm, 0)
    assert "the MCP tool's result was cut: 10,485,760 characters" in shown
    assert len(shown) < MAX_OBSERVATION_CHARS + 1_000
    [call] = recorder.of_type("tool_call")
    assert len(call.result) <= MAX_OBSERVATION_CHARS


def test_a_result_is_redacted_like_any_tool_output(repo, store, snapshots, hub):
    llm = scripted(act("notes.leak"), finish("done"))
    _session(llm, repo, store, snapshots, hub).ask("Read the config note")
    shown = _observation(llm, 0)
    assert "R4nd0mT0k3n" not in shown and "[REDACTED SECRET-GITHUB-TOKEN]" in shown


def test_an_error_result_is_an_error_observation(repo, store, snapshots, hub):
    llm = scripted(act("notes.fail"), finish("The notes database is locked."))
    result = _session(llm, repo, store, snapshots, hub).ask("Read the notes")
    assert result.status == "finished"
    assert ("Error: notes.fail reported an error: Error executing tool fail: the notes "
            "database is locked") in _observation(llm, 0)


def test_the_server_process_ends_with_the_hub():
    with McpHub({"notes": notes_server()}) as hub:
        pid = int(hub.call("notes", "pid", {}).content[0].text)
        assert Path(f"/proc/{pid}").exists()
    assert not Path(f"/proc/{pid}").exists()
