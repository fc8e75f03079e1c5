"""Bounds on the event streams a server holds open, and the few threads that read for them.

An event stream lives as long as its client wants: without a bound, a flood of them (the
audit opened 600 replaying the whole history) takes the event loop and the store from the
API, which then answered in 101 s. So a server admits at most MAX_STREAMS streams, and at
most MAX_STREAMS_PER_CLIENT from one client address; one more is a 429 at once, before any
reading. A stream's place is given back when its response ends, however it ends (finished
run, client gone, server stopping).

The streams read the store off the event loop, on their own small thread limiter: the
loop stays free to answer requests, and the threads the API's plain handlers run on (anyio's
default 40) are never taken by streams.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import Counter

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

MAX_STREAMS = 128
MAX_STREAMS_PER_CLIENT = 32  # a browser holds at most 6 connections to a server anyway
READER_THREADS = 4


class TooManyStreams(Exception):
    """More open streams than the server, or this client, may hold (HTTP 429)."""


class StreamGate:
    def __init__(self, total: int = MAX_STREAMS, per_client: int = MAX_STREAMS_PER_CLIENT,
                 readers: int = READER_THREADS) -> None:
        self.total, self.per_client, self.readers = total, per_client, readers
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._limiter = None  # made on first use: it belongs to the running event loop
        self._refreshing: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    def admit(self, client: str) -> StreamSlot:
        """A place for one stream of `client`; TooManyStreams when there is none."""
        with self._lock:
            if self._open[client] >= self.per_client:
                raise TooManyStreams(
                    f"too many open event streams from {client} (at most {self.per_client} "
                    "per client): close one and retry")
            if sum(self._open.values()) >= self.total:
                raise TooManyStreams(
                    f"too many open event streams on this server (at most {self.total}): "
                    "retry later")
            self._open[client] += 1
        return StreamSlot(self, client)

    def open_streams(self) -> int:
        with self._lock:
            return sum(self._open.values())

    def _release(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    async def read(self, function, *args):
        """`function(*args)` on one of the streams' reader threads."""
        import anyio

        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.readers)
        return await anyio.to_thread.run_sync(function, *args, limiter=self._limiter)

    async def run_page(self, cache, run_id: str, after_seq: int):
        """One page of a run's events for a stream (RunCache.read's answer): from the
        cache's memory when it is fresh; else one stream of the run reads the store on a
        reader thread while the run's other streams wait for it and then take the page
        from memory (a new event wakes every stream of the run at once)."""
        page = cache.cached(run_id, after_seq)
        if page is not None:
            return page
        lock = self._refreshing.get(run_id)
        if lock is None:
            lock = self._refreshing[run_id] = asyncio.Lock()
        async with lock:
            page = cache.cached(run_id, after_seq)
            return page if page is not None else await self.read(cache.read, run_id,
                                                                  after_seq)


class StreamSlot:
    def __init__(self, gate: StreamGate, client: str) -> None:
        self._gate, self._client, self._held = gate, client, True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._gate._release(self._client)


class HeldStream(Response):
    """A stream's response that gives its slot back when it ends, however it ends (the
    generator of a stream whose client left before it started never runs its cleanup)."""

    def __init__(self, inner: Response, slot: StreamSlot) -> None:
        self.inner, self.slot = inner, slot
        self.status_code, self.raw_headers = inner.status_code, inner.raw_headers
        self.background = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.inner(scope, receive, send)
        finally:
            self.slot.release()


def client_of(request) -> str:
    """The address a stream is counted against (one per host: a port is no identity)."""
    return request.client.host if request.client else "unknown"
