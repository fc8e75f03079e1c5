"""Where a tool may point codeloop: under the server's --root dirs (server/roots.py, the rule
`codeloop serve` applies), and, when the client names MCP roots, under one of those too.

Client roots only narrow: a path must pass the server's roots first, so a client root
outside them opens nothing. A client that declares no roots (or an empty list) leaves the
server's roots as they are. Only `file://` roots count; any other is ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import unquote, urlsplit

from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp_types import ListRootsResult

from codeloop.mcp.errors import api_call
from codeloop.server.roots import PathOutsideRoots


def _ask_client_roots(ctx: Context) -> ListRoots | None:
    """The resolver: ask `roots/list` of a client that declares the capability."""
    caps = ctx.client_capabilities
    if caps is None or caps.roots is None:
        return None
    return ListRoots()


ClientRoots = Annotated[ListRootsResult | None, Resolve(_ask_client_roots)]


def root_dirs(listed: ListRootsResult | None) -> list[Path]:
    """The client's file:// roots as resolved directories (none: no narrowing)."""
    dirs = []
    for root in (listed.roots if listed is not None else []):
        parts = urlsplit(str(root.uri))
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            continue
        dirs.append(Path(unquote(parts.path)).resolve(strict=False))
    return dirs


def check_path(state: Any, raw: str, listed: ListRootsResult | None, *,
               kind: str = "workspace", must_exist: bool = True) -> Path:
    """`raw` resolved under the server's roots and, if the client named roots, under one of
    them; a ToolError (one line) otherwise."""
    resolved = api_call(state.roots.resolve, raw, kind=kind, must_exist=must_exist)
    narrowed = root_dirs(listed)
    if narrowed and not any(resolved.is_relative_to(d) for d in narrowed):
        api_call(_refuse, f"the {kind} {raw!r} is outside the client's MCP roots")
    return resolved


def _refuse(why: str) -> None:
    raise PathOutsideRoots(why)
