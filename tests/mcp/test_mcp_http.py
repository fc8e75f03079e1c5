"""MCP over Streamable HTTP inside `codeloop serve` (`/api/mcp`), on a real uvicorn server:
behind the API's token (401 without it, whatever the MCP request), on the server's roots (a
workspace outside them is refused), its runs the API's runs."""

from __future__ import annotations

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_kit import TOOLS, structured, text_of
from server_kit import ADD, ADD_TASK, live_server, review_workspace, write_script

from codeloop.config import Settings
from codeloop.server.app import create_app

TOKEN = "mcp-test-token-0123456789"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "0"}}}


def _app(root):
    spec = write_script(root, [ADD], "default.yaml")
    return create_app(Settings(model=spec, sandbox_timeout=20), [root], TOKEN,
                      root / "runs.sqlite")


def _client(url: str, token: str | None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=120)
    return Client(streamable_http_client(f"{url}/api/mcp", http_client=http))


@pytest.mark.attack
def test_mcp_over_http_needs_the_token(tmp_path):
    with live_server(_app(tmp_path)) as url:
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}):
            answer = httpx.post(f"{url}/api/mcp", json=INITIALIZE, headers={
                **headers, "Accept": "application/json, text/event-stream"})
            assert answer.status_code == 401, answer.text
        listing = httpx.post(f"{url}/api/mcp", json={"jsonrpc": "2.0", "id": 2,
                                                      "method": "tools/list"})
        assert listing.status_code == 401

        async def scenario():
            with pytest.raises(Exception):  # noqa: B017 - the SDK's error for a 401
                async with _client(url, None) as client:
                    await client.list_tools()

        anyio.run(scenario)
        with httpx.Client() as http:
            assert http.get(f"{url}/api/runs", headers={
                "Authorization": f"Bearer {TOKEN}"}).json()["total"] == 0


@pytest.mark.attack
def test_mcp_over_http_runs_jobs_on_the_roots_and_refuses_outside(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = review_workspace(tmp_path, "outside")

    with live_server(_app(root)) as url:
        async def scenario():
            async with _client(url, TOKEN) as client:
                assert TOOLS <= {t.name for t in (await client.list_tools()).tools}
                solved = structured(await client.call_tool("solve", {"task": ADD_TASK}))
                assert solved["result"]["passed"] is True
                refused = await client.call_tool("review", {"workspace": str(outside),
                                                            "files": ["calc.py"]})
                assert refused.is_error and "outside" in text_of(refused)
                return solved["run_id"]

        run_id = anyio.run(scenario)
        listed = httpx.get(f"{url}/api/runs", headers={"Authorization": f"Bearer {TOKEN}"})
        assert [r["id"] for r in listed.json()["runs"]] == [run_id]  # one store, one API


@pytest.mark.attack
def test_a_web_page_cannot_drive_mcp_on_a_no_token_server(tmp_path):
    """The SDK's own DNS-rebinding check is off at /api/mcp: the API's middleware makes that
    call. Without a token, a request naming another Host (a rebinding page) or coming from
    another origin is refused before MCP sees it."""
    spec = write_script(tmp_path, [ADD], "default.yaml")
    app = create_app(Settings(model=spec), [tmp_path], None, tmp_path / "runs.sqlite")
    accept = {"Accept": "application/json, text/event-stream"}
    with live_server(app) as url:
        port = url.rsplit(":", 1)[1]
        rebound = httpx.post(f"{url}/api/mcp", json=INITIALIZE,
                             headers={**accept, "Host": f"evil.example:{port}"})
        assert rebound.status_code == 403, rebound.text
        cross = httpx.post(f"{url}/api/mcp", json=INITIALIZE,
                           headers={**accept, "Origin": "http://evil.example"})
        assert cross.status_code == 403, cross.text
        own = httpx.post(f"{url}/api/mcp", json=INITIALIZE, headers=accept)
        assert own.status_code == 200, own.text  # the loopback client itself is served
