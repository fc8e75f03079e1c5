"""The MCP server on Streamable HTTP inside `codeloop serve`, at `/api/mcp`.

It is one more route of the API app, so everything the app's middleware does holds for it:
the token on every request (401 without it: `/api/` is a protected prefix), the loopback
Host rule without a token, the same-origin rule for POSTs, the body size limit. Its tools
run on the app's own `ServerState`: the same store, live runs, model gate and roots. The
SDK's own DNS-rebinding check is off because the token middleware already makes that call
(with the rule the rest of the API follows, for any --host).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

PATH = "/api/mcp"


def add_mcp_routes(app: Any, state: Any) -> AbstractAsyncContextManager[None]:
    """Add `/api/mcp` to `app`; the context manager to run it for the app's lifespan."""
    from mcp.server.transport_security import TransportSecuritySettings

    from codeloop.mcp.server import build_server

    server = build_server(state)
    inner = server.streamable_http_app(
        streamable_http_path=PATH,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    app.router.routes.extend(inner.routes)
    return server.session_manager.run()
