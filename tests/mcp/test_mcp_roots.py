"""Workspaces only under `codeloop mcp --root` dirs, by the rule `codeloop serve` applies
(resolved, `is_relative_to`, symlinks followed); the client's MCP roots narrow them and
never widen them. A refused call is one line, starts no run and touches nothing."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest
from mcp_kit import connect, structured, text_of, tree
from server_kit import REVIEW_SCRIPT, review_workspace, write_script


def _calls(workspace: str) -> list[tuple[str, dict]]:
    return [("review", {"workspace": workspace, "files": ["calc.py"]}),
            ("agent", {"workspace": workspace, "request": "delete everything",
                       "init_git": True}),
            ("sandbox_run", {"command": ["touch", "pwned"], "workspace": workspace}),
            ("ask", {"question": "what is here?", "repo": workspace})]


@pytest.mark.attack
def test_a_workspace_outside_the_roots_is_refused(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = review_workspace(tmp_path, "ws")
    evil = review_workspace(tmp_path, "root-evil")  # /root vs /root-evil
    (root / "link").symlink_to(outside, target_is_directory=True)
    model = write_script(root, REVIEW_SCRIPT, "review.yaml")
    before = {d: tree(d) for d in (outside, evil)}

    async def scenario():
        async with connect(root, model) as client:
            for workspace in (str(outside), str(evil), "link", str(root / "link"),
                              "../ws", f"{root}/../ws"):
                for tool, arguments in _calls(workspace):
                    result = await client.call_tool(tool, arguments)
                    assert result.is_error, (tool, workspace, text_of(result))
                    assert "outside" in text_of(result), (tool, workspace, text_of(result))
            assert structured(await client.call_tool("runs_list", {}))["total"] == 0

    anyio.run(scenario)
    assert {d: tree(d) for d in (outside, evil)} == before
    assert not (outside / ".git").exists() and not (outside / "pwned").exists()


@pytest.mark.attack
def test_client_roots_narrow_the_server_roots_and_never_widen_them(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    allowed = review_workspace(root, "allowed")
    other = review_workspace(root, "other")
    outside = review_workspace(tmp_path, "outside")
    model = write_script(root, REVIEW_SCRIPT, "review.yaml")

    async def list_roots(_ctx):  # the client offers one dir inside and one outside
        return types.ListRootsResult(roots=[types.Root(uri=allowed.as_uri()),
                                            types.Root(uri=outside.as_uri())])

    async def scenario():
        async with connect(root, model, list_roots_callback=list_roots) as client:
            for workspace in (other, outside):
                result = await client.call_tool("sandbox_run", {
                    "command": ["touch", "pwned"], "workspace": str(workspace)})
                assert result.is_error and "outside" in text_of(result), text_of(result)
            inside = structured(await client.call_tool("sandbox_run", {
                "command": ["touch", "made"], "workspace": str(allowed)}))
            assert inside["exit_code"] == 0

    anyio.run(scenario)
    assert (allowed / "made").exists()
    assert not (other / "pwned").exists() and not (outside / "pwned").exists()
