"""The protocol's own checkers against codeloop: the MCP Inspector's CLI (a client no one here
wrote) lists the tools, runs `solve` and a `review` through approval on the scripted model over
stdio; the conformance suite (@modelcontextprotocol/conformance) runs its server scenarios
against `codeloop serve`'s /api/mcp. Both are installed by scripts/mcp-tools.sh (npm, pinned,
outside the repository); without them these tests are skipped, except in CI.

The suite's other scenarios call its reference server's fixtures (tools `test_image_content`,
prompts `test_simple_prompt`, resources `test://static-text`...) or capabilities codeloop does
not declare (logging, completion, subscriptions, sampling): they fail by design."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_kit import TOOLS, tree
from server_kit import (
    ADD,
    ADD_TASK,
    BUGGY,
    FIXED,
    REVIEW_SCRIPT,
    live_server,
    review_workspace,
    write_script,
)

from codeloop.config import Settings
from codeloop.server.app import create_app

TOOLS_DIR = Path(os.environ.get("CODELOOP_MCP_TOOLS",
                                Path.home() / ".cache" / "codeloop" / "mcp-tools"))
BIN = TOOLS_DIR / "node_modules" / ".bin"
needs_tools = pytest.mark.skipif(
    not (BIN / "conformance").exists() and not os.environ.get("CI"),
    reason="the MCP checkers are not installed (bash scripts/mcp-tools.sh)")
# The scenarios codeloop's server passes (conformance 0.1.10); any of them failing is a bug.
_STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
PASSING = {"server-initialize", "ping", "tools-list", "tools-call-simple-text",
           "tools-call-error", "server-sse-multiple-streams", "resources-list",
           "prompts-list"}


def _inspector(root: Path, model: str, *args: str) -> dict:
    """One `mcp-inspector-cli --cli codeloop mcp ... ARGS` call: its JSON answer."""
    command = [str(BIN / "mcp-inspector-cli"), "--cli", sys.executable, "-m", "codeloop",
               "mcp", "--root", str(root), "--model", model, "--store",
               str(root / "runs.sqlite"), *args]
    # Its CLI reads its own package.json by a path it checks from the working directory.
    done = subprocess.run(command, cwd=BIN.parent, capture_output=True, text=True, check=False,
                          timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@needs_tools
def test_the_inspector_lists_the_tools_and_runs_solve_and_a_review_through_approval(
        tmp_path):
    model = write_script(tmp_path, [ADD], "add.yaml")
    listed = _inspector(tmp_path, model, "--method", "tools/list")
    assert TOOLS <= {tool["name"] for tool in listed["tools"]}
    solved = _inspector(tmp_path, model, "--method", "tools/call", "--tool-name", "solve",
                        "--tool-arg", f"task={json.dumps(ADD_TASK)}")
    assert solved["structuredContent"]["result"]["passed"] is True

    ws = review_workspace(tmp_path)
    review_model = write_script(tmp_path, REVIEW_SCRIPT, "review.yaml")
    shown = _inspector(tmp_path, review_model, "--method", "tools/call", "--tool-name",
                       "review", "--tool-arg", f"workspace={ws}",
                       "--tool-arg", 'files=["calc.py"]')["structuredContent"]
    assert shown["status"] == "awaiting_approval" and len(shown["diff_digest"]) == 64
    before = tree(ws)
    stale = _inspector(tmp_path, review_model, "--method", "tools/call", "--tool-name",
                       "approve", "--tool-arg", f"run_id={shown['run_id']}",
                       "--tool-arg", f"digest={'0' * 64}")
    assert stale["isError"] and "nothing was written" in stale["content"][0]["text"]
    assert tree(ws) == before and (ws / "calc.py").read_text() == BUGGY
    applied = _inspector(tmp_path, review_model, "--method", "tools/call", "--tool-name",
                         "approve", "--tool-arg", f"run_id={shown['run_id']}",
                         "--tool-arg", f"digest={shown['diff_digest']}")
    assert applied["structuredContent"]["written"] == ["calc.py"], applied
    assert (ws / "calc.py").read_text() == FIXED


def scenario_of(folder: str) -> str:
    """The scenario a results folder `server-<scenario>-<ISO time, ":" and "." as "-">` holds.
    A split at the last "-20" cut the time instead when its minute, second or millisecond
    began with 20: in CI at 01:20 every scenario was "not run"; stop 62's tools-list flake."""
    return _STAMP.sub("", folder.removeprefix("server-"))


def test_a_results_folder_names_its_scenario_whatever_the_time():
    assert scenario_of("server-ping-2026-12-07T01-20-33-120Z") == "ping"
    assert scenario_of("server-tools-list-2026-12-06T20-20-20-200Z") == "tools-list"
    assert scenario_of("server-server-initialize-2027-01-01T00-00-00-000Z") == \
        "server-initialize"


def _conformance(url: str, results: Path, *scenario: str) -> tuple[dict[str, list[str]], str]:
    """Run the suite (or the named scenario) against `url`: ({scenario: [the error message of
    each failed check]}, the CLI's output tail)."""
    args = ["--scenario", scenario[0]] if scenario else []
    done = subprocess.run([str(BIN / "conformance"), "server", "--url", url, "-o",
                           str(results), *args], capture_output=True, text=True, check=False,
                          timeout=600, cwd=results.parent)
    outcome: dict[str, list[str]] = {}
    for checks in results.glob("*/checks.json"):
        name = scenario_of(checks.parent.name)
        outcome[name] = [str(c.get("errorMessage") or c["id"])
                         for c in json.loads(checks.read_text()) if c["status"] == "FAILURE"]
    return outcome, done.stdout[-3000:] + done.stderr[-2000:]


@needs_tools
def test_the_conformance_suite_against_serve(tmp_path):
    spec = write_script(tmp_path, [ADD], "default.yaml")
    app = create_app(Settings(model=spec), [tmp_path], None, tmp_path / "runs.sqlite")
    with live_server(app) as url:
        outcome, said = _conformance(f"{url}/api/mcp", tmp_path / "results")
        assert outcome, said
        failed = {name: outcome.get(name, ["not run"]) for name in PASSING
                  if outcome.get(name, ["not run"])}
        # A scenario codeloop passes that failed is run once more alone: CI saw tools-list
        # fail once in a full run on a loaded machine (its error text not kept) where it
        # passed in every run here, three of them with both cores busy. Failing twice is a bug.
        for name in sorted(failed):
            again, said_again = _conformance(f"{url}/api/mcp", tmp_path / f"again-{name}",
                                             name)
            if again.get(name) == []:
                print(f"{name} failed once ({failed.pop(name)}), passed when run again")
            else:
                said += said_again
    assert not failed, (failed, said)
