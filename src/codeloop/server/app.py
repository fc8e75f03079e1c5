"""`create_app(settings, roots, token, store_path)`: the FastAPI app `codeloop serve` runs.

One app holds one run store (the source of truth for runs and events), a read connection on
it for streams and lists, the live runs' manager and the web UI. At startup, runs whose
process died (a killed server) are marked interrupted; at shutdown, live runs are stopped at
their next model call and recorded as interrupted, so a restart loses no run.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.config import Settings
from codeloop.server.feed import Notifier, RunCache, StoreFeed
from codeloop.server.job_runners import JobContext
from codeloop.server.models import DEFAULT_SERIAL_BACKENDS, ServerModels
from codeloop.server.roots import Roots
from codeloop.server.run_manager import RunManager
from codeloop.server.stream_gate import StreamGate
from codeloop.store import RunStore

log = logging.getLogger("codeloop.server")


@dataclass
class ServerState:
    settings: Settings
    roots: Roots
    token: str | None
    store: RunStore
    feed: StoreFeed
    notifier: Notifier
    manager: RunManager
    jobs: JobContext
    run_cache: RunCache
    interrupted_at_start: list[str]
    streams: StreamGate = field(default_factory=StreamGate)  # bounds on open event streams

    def close(self) -> None:
        self.manager.shutdown()
        self.feed.close()
        self.store.close()


def open_state(settings: Settings, roots: list[Path] | Roots, token: str | None,
               store_path: Path | str, *, serial_backends: frozenset[str] =
               DEFAULT_SERIAL_BACKENDS, max_live_runs: int = 32) -> ServerState:
    roots = roots if isinstance(roots, Roots) else Roots([Path(r) for r in roots])
    store = RunStore(store_path)
    interrupted = store.mark_interrupted()  # runs of a server (or CLI) that died
    if interrupted:
        log.info("%d run(s) were live when their process died: now interrupted",
                 len(interrupted))
    feed = StoreFeed(store.path)
    notifier = Notifier()
    models = ServerModels(settings, roots, serial_backends)
    return ServerState(settings=settings, roots=roots, token=token, store=store, feed=feed,
                       notifier=notifier,
                       manager=RunManager(store, notifier, max_live=max_live_runs),
                       jobs=JobContext(store, models, settings, roots),
                       run_cache=RunCache(feed, notifier),
                       interrupted_at_start=interrupted)


def create_app(settings: Settings, roots: list[Path] | Roots, token: str | None,
               store_path: Path | str, *, serial_backends: frozenset[str] =
               DEFAULT_SERIAL_BACKENDS, max_live_runs: int = 32):
    """The app. StoreError when the store cannot be used; ValueError for bad roots."""
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles

    from codeloop import __version__
    from codeloop.mcp.http import add_mcp_routes
    from codeloop.server import errors, routes_build, routes_docs, routes_runs, routes_ui, sse
    from codeloop.server.auth import TokenMiddleware

    state = open_state(settings, roots, token, store_path, serial_backends=serial_backends,
                       max_live_runs=max_live_runs)

    @asynccontextmanager
    async def lifespan(_app):
        try:
            async with mcp_running:
                yield
        finally:
            state.close()

    app = FastAPI(title="codeloop", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,  # /docs: routes_docs.py, no CDN
                  description="Run codeloop's jobs, stream their events, approve changes.")
    app.state.server = state
    mcp_running = add_mcp_routes(app, state)  # /api/mcp: MCP over Streamable HTTP
    errors.install(app)
    app.include_router(routes_runs.router)
    app.include_router(sse.router)
    app.include_router(routes_build.router)
    app.include_router(routes_ui.router)
    app.include_router(routes_docs.router)
    app.mount("/static", StaticFiles(directory=str(routes_ui.STATIC)), name="static")
    app.add_middleware(TokenMiddleware, token=token)
    return app
