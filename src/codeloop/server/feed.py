"""Reading the run store for streams and lists, and waking streams when events arrive.

The store is the source of truth: an SSE client gets what the store holds, numbered as the
store numbers it (a run's `seq`; for the all-runs stream the events table's rowid, which grows
in commit order because the store writes one event at a time). This module reads the store's
file over its own read connection (WAL: readers never block the jobs writing), with queries
the RunStore has no method for: events across runs, token sums per run and per stage.

`Notifier` wakes the streams of this process when one of its runs emits (sub-millisecond
latency); streams also re-read the store every second for runs other processes move on
(a `codeloop approve` from a terminal).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from codeloop.events import Event, parse_event


class StoreFeed:
    def __init__(self, path: Path) -> None:
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def all_payloads(self, after_rowid: int, limit: int = 200
                     ) -> list[tuple[int, str, int, str]]:
        """[(rowid, run_id, seq, the event's stored JSON)] of every run, in the order they
        were stored: one page, sent as stored (parsing every event of a long history for
        every stream is what made a replay flood take the server)."""
        return self._rows("SELECT rowid, run_id, seq, payload FROM events WHERE rowid > ? "
                          "ORDER BY rowid LIMIT ?", (after_rowid, limit))

    def run_events(self, run_id: str, after_seq: int) -> list[tuple[int, Event]]:
        rows = self._rows("SELECT seq, payload FROM events WHERE run_id = ? AND seq > ? "
                          "ORDER BY seq LIMIT 1000", (run_id, after_seq))
        return [(seq, parse_event(payload)) for seq, payload in rows]

    def run_payloads(self, run_id: str, after_seq: int, limit: int = 1000
                     ) -> list[tuple[int, str]]:
        """[(seq, the event's stored JSON)]: what a stream sends, without parsing it."""
        return self._rows("SELECT seq, payload FROM events WHERE run_id = ? AND seq > ? "
                          "ORDER BY seq LIMIT ?", (run_id, after_seq, limit))

    def run_status(self, run_id: str) -> str | None:
        rows = self._rows("SELECT status FROM runs WHERE id = ?", (run_id,))
        return rows[0][0] if rows else None

    def last_rowid(self) -> int:
        return self._rows("SELECT COALESCE(MAX(rowid), 0) FROM events", ())[0][0]

    def tokens_by_run(self, run_ids: list[str]) -> dict[str, int]:
        if not run_ids:
            return {}
        marks = ",".join("?" * len(run_ids))
        rows = self._rows(
            "SELECT run_id, SUM(COALESCE(json_extract(payload, '$.prompt_tokens'), 0) + "
            "COALESCE(json_extract(payload, '$.completion_tokens'), 0)) FROM events "
            f"WHERE type = 'llm_call' AND run_id IN ({marks}) GROUP BY run_id", tuple(run_ids))
        return {run_id: int(total or 0) for run_id, total in rows}

    def tokens_by_stage(self, run_id: str) -> dict[str, dict[str, int]]:
        rows = self._rows(
            "SELECT COALESCE(NULLIF(json_extract(payload, '$.stage'), ''), '(none)'), "
            "SUM(json_extract(payload, '$.prompt_tokens')), "
            "SUM(json_extract(payload, '$.completion_tokens')), COUNT(*) FROM events "
            "WHERE run_id = ? AND type = 'llm_call' GROUP BY 1 ORDER BY MIN(seq)", (run_id,))
        return {stage: {"prompt_tokens": int(p or 0), "completion_tokens": int(c or 0),
                        "total_tokens": int(p or 0) + int(c or 0), "calls": int(n)}
                for stage, p, c, n in rows}

    def count_events(self, run_id: str) -> int:
        return self._rows("SELECT COUNT(*) FROM events WHERE run_id = ?", (run_id,))[0][0]


class Notifier:
    """Thread-safe wake-ups for asyncio streams: `notify(run_id)` from a worker thread sets
    the asyncio.Event of every stream watching that run (or watching all runs), and counts
    the run's version (what RunCache compares to know the store has more)."""

    def __init__(self) -> None:
        self._watchers: set[tuple[asyncio.AbstractEventLoop, asyncio.Event, str | None]] = set()
        self._versions: dict[str | None, int] = {}
        self._lock = threading.Lock()

    def version(self, run_id: str) -> int:
        with self._lock:
            return self._versions.get(run_id, 0)

    @contextmanager
    def watch(self, run_id: str | None) -> Iterator[asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event(), run_id)
        with self._lock:
            self._watchers.add(entry)
        try:
            yield entry[1]
        finally:
            with self._lock:
                self._watchers.discard(entry)

    def notify(self, run_id: str | None) -> None:
        with self._lock:
            self._versions[run_id] = self._versions.get(run_id, 0) + 1
            targets = [(loop, ev) for loop, ev, rid in self._watchers
                       if rid is None or rid == run_id]
        for loop, event in targets:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the stream's loop is closed: it is going away
                pass


class _Cached:
    def __init__(self) -> None:
        self.events: list[tuple[int, str]] = []  # (seq, data), contiguous from seq 1
        self.status: str | None = None
        self.version = -1
        self.checked = 0.0


class RunCache:
    """One read of the store per new event for every stream of a run in this process: 50
    clients on one run cost one query, not 50. Read from the streams' reader threads (off
    the event loop), one at a time.

    A run's entry is refreshed when its notifier version moved (this process emitted) or
    every POLL seconds (another process may have). The status is read before the events,
    so a stream that sees a finished status has all of the run's events."""

    POLL = 1.0
    MAX_RUNS = 64
    MAX_EVENTS = 20_000  # per run; a longer run's later events are read from the store
    BATCH = 5000
    PAGE = 200  # events a stream sends between two reads: replays go in pages

    def __init__(self, feed: StoreFeed, notifier: Notifier) -> None:
        from collections import OrderedDict

        self.feed, self.notifier = feed, notifier
        self._runs: OrderedDict[str, _Cached] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, run_id: str, after_seq: int) -> tuple[str | None, list[tuple[int, str]]]:
        """(the run's status, [(seq, data JSON)] after `after_seq`, one page), status read
        first."""
        with self._lock:
            return self._read(run_id, after_seq)

    def cached(self, run_id: str, after_seq: int
               ) -> tuple[str | None, list[tuple[int, str]]] | None:
        """What `read` answers, from memory only, when the run's entry is fresh (what the
        many streams of one run mostly ask, cheap enough for the event loop); None when the
        store must be read, or a reader thread holds the cache (never waits for it)."""
        import time

        if not self._lock.acquire(blocking=False):
            return None
        try:
            entry = self._runs.get(run_id)
            if (entry is None or entry.version != self.notifier.version(run_id)
                    or time.monotonic() - entry.checked >= self.POLL
                    or (len(entry.events) >= self.MAX_EVENTS and entry.events
                        and after_seq >= entry.events[-1][0])):
                return None
            self._runs.move_to_end(run_id)
            start = _first_after(entry.events, after_seq)
            return entry.status, entry.events[start:start + self.PAGE]
        finally:
            self._lock.release()

    def _read(self, run_id: str, after_seq: int) -> tuple[str | None, list[tuple[int, str]]]:
        import time

        entry = self._runs.pop(run_id, None) or _Cached()
        self._runs[run_id] = entry  # most recently used last
        while len(self._runs) > self.MAX_RUNS:
            self._runs.popitem(last=False)
        version, now = self.notifier.version(run_id), time.monotonic()
        if entry.version != version or now - entry.checked >= self.POLL:
            entry.status = self.feed.run_status(run_id)
            last = entry.events[-1][0] if entry.events else 0
            rows = self.feed.run_payloads(run_id, last, limit=self.BATCH)
            for seq, payload in rows:
                if len(entry.events) < self.MAX_EVENTS:
                    entry.events.append((seq, with_seq(payload, seq)))
            # a full batch: the store may hold more, so the next read looks again
            entry.version = version if len(rows) < self.BATCH else -1
            entry.checked = now
        if len(entry.events) >= self.MAX_EVENTS and after_seq >= entry.events[-1][0]:
            rows = self.feed.run_payloads(run_id, after_seq, self.PAGE)  # past the cache
            return entry.status, [(seq, with_seq(p, seq)) for seq, p in rows]
        start = _first_after(entry.events, after_seq)
        return entry.status, entry.events[start:start + self.PAGE]


def with_seq(payload: str, seq: int) -> str:
    """The stored event JSON with its seq added (one object: splice before its last brace)."""
    body = payload.rstrip()
    return f'{body[:-1]}, "seq": {seq}}}' if body not in ("{}", "") else f'{{"seq": {seq}}}'


def _first_after(events: list[tuple[int, str]], after_seq: int) -> int:
    from bisect import bisect_right

    return bisect_right(events, after_seq, key=lambda item: item[0])
