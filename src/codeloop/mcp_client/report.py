"""What `codeloop config show` says of the MCP servers: each one started briefly, its tools
listed, stopped. One line a server; a server that fails is its one line with the reason."""

from __future__ import annotations

from typing import Any

from codeloop.mcp_client.hub import McpHub, ServerStatus
from codeloop.mcp_client.settings import McpServerConfig


def probe(servers: dict[str, McpServerConfig]) -> list[ServerStatus]:
    """Start every server, list its tools, stop them all."""
    with McpHub(servers) as hub:
        return list(hub.statuses.values())


def status_record(status: ServerStatus) -> dict[str, Any]:
    return {"transport": status.config.transport, "target": status.config.target(),
            "tools": [t.name for t in status.tools], "hidden": status.hidden,
            "not_offered": status.missing, "unusable": status.unusable,
            "allow_list": status.config.enabled_tools, "error": status.error}


def status_line(status: ServerStatus) -> str:
    head = f"{status.name} ({status.config.transport}: {status.config.target()})"
    if status.error:
        return f"{head}: FAILED: {status.error}"
    tools = ", ".join(f"{status.name}.{t.name}" for t in status.tools) or "no tools"
    notes = []
    if status.hidden:
        notes.append(f"hidden by the allow-list: {', '.join(status.hidden)}")
    if status.missing:
        notes.append(f"allow-listed but not offered: {', '.join(status.missing)}")
    if status.unusable:
        notes.append(f"names not allowed by MCP: {', '.join(status.unusable)}")
    return f"{head}: {tools}" + (f" ({'; '.join(notes)})" if notes else "")
