"""`ask`, `agent` and `sandbox_run` through `codeloop mcp` (a real subprocess) on the scripted
model and the real sandbox: ask's answer with its grounded citations, one agent turn with its
change summary, a command run in the sandbox as the jobs run code."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import anyio
from mcp_kit import connect, structured, text_of
from server_kit import ADD, FIXED, review_workspace, write_script

FIXTURES = Path(__file__).parents[1] / "ask" / "fixtures"
STEPS = {"match": "Plan how to complete the task",
         "json": {"steps": ["Find the function that sums the items", "Read inventory_value",
                            "Answer citing lines"]}}
ANSWER = ("`inventory_value` adds up `item.total()` for every item (pyapp/report.py:6-8); "
          "each `total` is quantity times price (pyapp/models.py:12).")


def test_ask_answers_about_a_repository_under_the_roots_with_grounding(tmp_path):
    repo = tmp_path / "pyapp"
    shutil.copytree(FIXTURES / "pyapp", repo)
    model = write_script(tmp_path, [STEPS, {"match": "Code from the repository",
                                            "reply": ANSWER}], "ask.yaml")

    async def scenario():
        async with connect(tmp_path, model) as client:
            outcome = structured(await client.call_tool("ask", {
                "question": "Where is the inventory value computed?", "repo": "pyapp"}))
            result = outcome["result"]
            assert outcome["job"] == "ask" and result["final_output"] == ANSWER
            assert result["grounding"]["cited"] == 2 == result["grounding"]["grounded"]
            empty = await client.call_tool("ask", {"question": "  ", "repo": "pyapp"})
            assert empty.is_error and "empty" in text_of(empty)

    anyio.run(scenario)


def test_one_agent_turn_returns_its_change_summary(tmp_path):
    ws = review_workspace(tmp_path)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    whole = f"Here is the fix.\n\nFILE: calc.py\n```python\n{FIXED}```\n"
    model = write_script(tmp_path, [whole], "agent.yaml")

    async def scenario():
        async with connect(tmp_path, model) as client:
            return structured(await client.call_tool("agent", {
                "workspace": str(ws),
                "request": "The tests in test_calc.py fail. Find and fix the bug in calc.py."}))

    outcome = anyio.run(scenario)
    assert outcome["job"] == "agent", outcome
    result = outcome["result"]
    assert result["status"] == "finished", result
    assert [c["path"] for c in result["changes"]] == ["calc.py"]
    assert (ws / "calc.py").read_text() == FIXED


def test_sandbox_run_runs_a_command_in_the_sandbox(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "hello.py").write_text("import socket, sys\nprint('hi', sys.argv[1])\n"
                                 "try:\n    socket.create_connection(('1.1.1.1', 53), 1)\n"
                                 "    print('net')\nexcept OSError:\n    print('no net')\n")
    model = write_script(tmp_path, [ADD])

    async def scenario():
        async with connect(tmp_path, model) as client:
            out = structured(await client.call_tool("sandbox_run", {
                "command": ["python", "hello.py", "x"], "workspace": str(ws),
                "mode": "ro"}))
            assert out["exit_code"] == 0 and out["sandboxed"] is True, out
            assert out["stdout"] == "hi x\nno net\n"
            failing = structured(await client.call_tool("sandbox_run", {
                "command": ["python", "-c", "import sys; sys.exit(3)"]}))
            assert failing["exit_code"] == 3
            empty = await client.call_tool("sandbox_run", {"command": []})
            assert empty.is_error

    anyio.run(scenario)
