"""The MCP servers of one agent run: started together, listed, called, stopped together.

The SDK is async (anyio); the agent's tool loop is not. The hub runs the servers' client
sessions on one event loop in a thread of its own (anyio's blocking portal) and the loop's
tools call into it. Each server lives in one task inside its own cancel scope, so a server
that does not start in time is cancelled alone and the others go on; stopping cancels every
scope, and the SDK's stdio transport then closes the server's stdin, waits, terminates and
kills it: no process outlives the run. A server's stderr goes to a private temporary file
(never the user's terminal); its last line explains a failed start.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Self

from codeloop.mcp_client.settings import McpServerConfig

# The protocol's tool names (SEP-986); a name beyond them is not offered to the model.
TOOL_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
MAX_LIST_PAGES = 20  # a server whose tool list never ends cannot hang the start
STOP_SECONDS = 10.0  # the SDK's own shutdown is bounded (about 2 s a server); margin


class McpCallError(Exception):
    """A call that gave no result (server down, timeout, protocol error): one line."""


@dataclass(frozen=True)
class ListedTool:
    server: str
    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.name}"


@dataclass
class ServerStatus:
    """What one server gave at start: its allowed tools, or why it gave none."""

    name: str
    config: McpServerConfig
    tools: list[ListedTool] = field(default_factory=list)  # offered and allowed
    hidden: list[str] = field(default_factory=list)  # offered, not in the allow-list
    unusable: list[str] = field(default_factory=list)  # names the protocol does not allow
    missing: list[str] = field(default_factory=list)  # allow-listed, not offered
    error: str = ""

    @property
    def running(self) -> bool:
        return not self.error

    def failure_line(self) -> str:
        return f"MCP server {self.name!r} is not available: {self.error}"


class McpHub:
    """`with McpHub(servers) as hub:` starts every server (each within its start-up timeout),
    `hub.tools()` lists what they offer, `hub.call(...)` runs one, the end stops them all."""

    def __init__(self, servers: dict[str, McpServerConfig]) -> None:
        self.statuses = {name: ServerStatus(name, config) for name, config in servers.items()}
        self._clients: dict[str, Any] = {}
        self._scopes: dict[str, Any] = {}
        self._ready = {name: threading.Event() for name in servers}
        self._futures: list[Any] = []
        self._portal_cm: Any = None
        self._portal: Any = None

    # ------------------------------------------------------------------ life
    def start(self) -> Self:
        if not self.statuses or self._portal is not None:
            return self
        from anyio.from_thread import start_blocking_portal

        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        started = time.monotonic()
        for name, status in self.statuses.items():
            self._futures.append(self._portal.start_task_soon(self._serve, name, status.config))
        for name, status in self.statuses.items():
            limit = status.config.startup_timeout_sec
            if not self._ready[name].wait(max(0.0, limit - (time.monotonic() - started))):
                self._portal.call(self._give_up, name, f"did not start within {limit:g} s")
        return self

    def stop(self) -> None:
        if self._portal is None:
            return
        portal, self._portal = self._portal, None
        try:
            portal.call(self._cancel_all)
            for future in self._futures:
                with contextlib.suppress(Exception):  # a failure was recorded when it came
                    future.result(timeout=STOP_SECONDS)
        finally:
            self._portal_cm.__exit__(None, None, None)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ use
    def tools(self) -> list[ListedTool]:
        return [tool for status in self.statuses.values() for tool in status.tools]

    def failures(self) -> list[str]:
        return [s.failure_line() for s in self.statuses.values() if not s.running]

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
        """The tool's CallToolResult; McpCallError (one line) when there is none."""
        status = self.statuses.get(server)
        if status is None or self._portal is None:
            raise McpCallError(f"MCP server {server!r} is not running")
        if not status.running:
            raise McpCallError(status.failure_line())
        timeout = status.config.tool_timeout_sec
        try:
            return self._portal.call(self._call, server, tool, arguments, timeout)
        except McpCallError:
            raise
        except TimeoutError:
            raise McpCallError(f"MCP server {server!r} did not answer {tool} within "
                               f"{timeout:g} s; the call was abandoned") from None
        except Exception as exc:  # noqa: BLE001 - any failure of another program: one line
            raise McpCallError(f"MCP server {server!r} failed on {tool}: "
                               f"{_one_line(exc)}") from None

    # ------------------------------------------------------------------ event loop side
    async def _serve(self, name: str, config: McpServerConfig) -> None:
        import anyio

        status = self.statuses[name]
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                with anyio.CancelScope() as scope:
                    self._scopes[name] = scope
                    async with _connect(config, errlog) as client:
                        _sort_tools(status, await _list_tools(client), name)
                        self._clients[name] = client
                        self._ready[name].set()
                        await anyio.sleep_forever()
            except Exception as exc:  # noqa: BLE001 - a server that fails is one line
                if not status.error:
                    status.error = _start_failure(exc, errlog)
            finally:
                self._clients.pop(name, None)
                self._ready[name].set()

    def _give_up(self, name: str, why: str) -> None:
        """In the loop's thread: a server not ready by now is cancelled (unless it just was)."""
        if name not in self._clients:
            self.statuses[name].error = why
            self.statuses[name].tools = []
            scope = self._scopes.get(name)
            if scope is not None:
                scope.cancel()

    def _cancel_all(self) -> None:
        for scope in self._scopes.values():
            scope.cancel()

    async def _call(self, server: str, tool: str, arguments: dict[str, Any],
                    timeout: float) -> Any:
        import anyio
        from mcp import MCPError

        client = self._clients.get(server)
        if client is None:
            raise McpCallError(f"MCP server {server!r} has stopped")
        try:
            with anyio.fail_after(timeout + 1.0):  # the SDK's own timeout first; this bounds all
                return await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except MCPError as exc:
            if "timed out" in str(exc):
                raise TimeoutError from None
            raise


@asynccontextmanager
async def _connect(config: McpServerConfig, errlog: Any) -> AsyncIterator[Any]:
    """A connected, initialised SDK Client for one server."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp_types import Implementation

    info = Implementation(name="codeloop", version=_version())
    if config.command:
        params = StdioServerParameters(
            command=os.path.expanduser(config.command), args=list(config.args),
            env={k: os.path.expandvars(v) for k, v in config.env.items()} or None,
            cwd=os.path.expanduser(config.cwd) if config.cwd else None)
        async with Client(stdio_client(params, errlog=errlog), client_info=info) as client:
            yield client
        return
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=http_headers(config),
                                  timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        transport = streamable_http_client(config.url, http_client=http)
        async with Client(transport, client_info=info) as client:
            yield client


def http_headers(config: McpServerConfig, env: dict[str, str] | None = None) -> dict[str, str]:
    """The headers an HTTP server gets, their values from the environment variables named."""
    env = dict(os.environ) if env is None else env
    wanted = dict(config.env_http_headers)
    if config.bearer_token_env_var:
        wanted["Authorization"] = config.bearer_token_env_var
    headers = {}
    for header, variable in wanted.items():
        value = env.get(variable, "")
        if not value:
            raise McpCallError(f"environment variable {variable} (for the {header} header) "
                               "is not set")
        headers[header] = f"Bearer {value}" if header == "Authorization" and \
            variable == config.bearer_token_env_var else value
    return headers


async def _list_tools(client: Any) -> list[Any]:
    tools, cursor = [], None
    for _ in range(MAX_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _sort_tools(status: ServerStatus, offered: list[Any], server: str) -> None:
    names = set()
    for tool in offered:
        names.add(tool.name)
        if not TOOL_NAME.match(tool.name):
            status.unusable.append(tool.name[:60])
        elif not status.config.allows(tool.name):
            status.hidden.append(tool.name)
        else:
            schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
            status.tools.append(ListedTool(server, tool.name, tool.description or "", schema))
    status.missing = [n for n in (status.config.enabled_tools or []) if n not in names]


def _start_failure(exc: BaseException, errlog: Any) -> str:
    why = _one_line(exc)
    try:
        errlog.flush()
        errlog.seek(0)
        lines = [line.strip() for line in errlog.read()[-4000:].splitlines() if line.strip()]
    except (OSError, ValueError):
        lines = []
    return f"{why} (its stderr: {lines[-1][:200]})" if lines else why


def _one_line(exc: BaseException) -> str:
    """The innermost real error of an exception (task groups wrap them), on one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        text = f"command not found: {exc.filename or text}"
    return text[:300]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codeloop")
    except PackageNotFoundError:
        return "0"
