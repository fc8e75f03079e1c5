"""SQLite run store: runs and their events, plus LangGraph's checkpointer on the same file.

Every job opens its run with `with store.run(job, inputs) as run:` (store_run.py): the run's
id, an event bus the store listens to, and a recorded end whatever happens. Rows are written
as events arrive, so a killed process loses nothing that was already emitted. One RunStore
serves many threads (a server's workers): every statement runs under one lock.

The agent's conversation threads are LangGraph checkpoints in the same file; `threads`
lists them, so no other module reads the checkpointer's tables.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from codeloop.events import Event, EventBus, parse_event, redacted
from codeloop.redaction import redact_value
from codeloop.run_statuses import (
    OLD_STATUSES,
    PAUSED_STATUSES,
    RESUMABLE_STATUSES,
    STATUSES,
    settle,
)
from codeloop.store_file import StoreError, open_store_connection
from codeloop.store_run import Run, UnfinishedRun, open_run

__all__ = ["PAUSED_STATUSES", "RESUMABLE_STATUSES", "SCHEMA", "Run", "RunNotResumable",
           "RunRecord", "RunStore", "StoreError", "UnfinishedRun", "saved_threads"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    job TEXT NOT NULL,
    status TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    input TEXT NOT NULL DEFAULT '{}',
    result TEXT
);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    ts REAL NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS runs_by_job ON runs(job, started);
"""
# Columns added after the first release: (name, declaration); added to older stores on open.
# `outcome`: the job's phrase beside the run's status (run_statuses.py).
_ADDED_COLUMNS = (("owner", "TEXT"), ("outcome", "TEXT"))
_COLUMNS = "id, job, status, started, ended, input, result, outcome"


def add_columns(conn: sqlite3.Connection, names: list[str]) -> None:
    """Add the columns of `_ADDED_COLUMNS` named, that an older store lacked. Another
    process opening the same store may add one between our look and our ALTER (two CLI runs
    started together: `ask`'s SIGTERM test failed on "duplicate column name: owner"): a
    column already there is what was wanted."""
    for name, decl in _ADDED_COLUMNS:
        if name not in names:
            continue
        try:
            conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {decl}")
        except sqlite3.OperationalError as error:
            if "duplicate column name" not in str(error):
                raise


def _owner() -> str:
    """Who runs a live run: this host and process (a dead owner means an interrupted run)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _owner_alive(owner: str | None) -> bool:
    """Whether a live run's owner may still be running. Another host's process is not ours
    to judge (alive); no owner recorded (an older store) or a gone pid here is dead."""
    host, _, pid = (owner or "").rpartition(":")
    if host and host != socket.gethostname():
        return True
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunNotResumable(StoreError):
    """`store.resume(run_id)`: no such run, or it is not waiting (finished, or taken up by
    another process already)."""

# Events that are too chatty to keep: streamed tokens are shown live, never stored.
_SKIPPED_EVENTS = {"token"}


@dataclass(frozen=True)
class RunRecord:
    id: str
    job: str
    status: str
    started: float
    ended: float | None
    input: dict[str, Any]
    result: Any
    outcome: str = ""  # the job's phrase beside the status: "tests passed", "3 of 5 merged"


class RunStore:
    """Raises StoreError (one line naming the file and what to do) when the file cannot
    be used: not a database, truncated, a directory, not writable."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        # One connection shared across threads (jobs run nodes in worker threads).
        if str(path) == ":memory:":
            self.conn = sqlite3.connect(":memory:", check_same_thread=False,
                                        isolation_level=None)
            self.conn.executescript(SCHEMA)
        else:
            self.conn = open_store_connection(self.path, SCHEMA)
        self._add_missing_columns()
        self._migrate_statuses()
        self._lock = threading.Lock()
        self._seq: dict[str, int] = {}
        self._checkpointer = None

    # -------------------------------------------------------------- runs
    @contextmanager
    def run(self, job: str, inputs: dict[str, Any] | None = None, *,
            bus: EventBus | None = None) -> Iterator[Run]:
        """`with store.run("review", inputs) as run:` ... `run.finish(status, result)`.

        See store_run.py: an exception in the block is recorded as "failed" and re-raised; a
        block that ends without finish is recorded as "failed" and raises UnfinishedRun.
        `bus`: lend a long-lived bus to the run (do not subscribe the store to it yourself).
        """
        with open_run(self, job, inputs, bus) as run:
            yield run

    @contextmanager
    def resume(self, run_id: str, *, bus: EventBus | None = None) -> Iterator[Run]:
        """`with store.resume(run_id) as run:` takes up a paused (awaiting approval) or
        interrupted run, in any process: the same id, its events numbered on from the last.
        Only one caller can claim it; the others get RunNotResumable. The block ends it as
        `store.run`'s does (finish, pause again, or an error recorded)."""
        with open_run(self, "", None, bus, resume_id=run_id) as run:
            yield run

    def start_run(self, job: str, inputs: dict[str, Any] | None = None) -> str:
        run_id = f"{job}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
        with self._lock:
            self.conn.execute(
                "INSERT INTO runs (id, job, status, started, input, owner) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, job, "running", time.time(),
                 json.dumps(redact_value(inputs or {}), default=str), _owner()),
            )
        return run_id

    def claim_run(self, run_id: str) -> str:
        """Mark a resumable run as running by this process; RunNotResumable otherwise. One
        UPDATE with the status in its WHERE: two processes approving at once, one wins."""
        self.mark_interrupted([run_id])  # a run whose process died can be taken up
        marks = ",".join("?" * len(RESUMABLE_STATUSES))
        with self._lock:
            claimed = self.conn.execute(
                f"UPDATE runs SET status = 'running', ended = NULL, outcome = '', owner = ? "
                f"WHERE id = ? AND status IN ({marks})",
                (_owner(), run_id, *RESUMABLE_STATUSES)).rowcount
            self._seq.pop(run_id, None)  # another store may have added events since
        if claimed:
            return run_id
        record = self.get_run(run_id)
        if record is None:
            raise RunNotResumable(f"no run {run_id!r} in {self.path} (see `codeloop runs`)")
        raise RunNotResumable(f"run {run_id} is {record.status}, not waiting: nothing to "
                              f"resume")

    def finish_run(self, run_id: str, status: str, result: Any = None, *,
                   outcome: str | None = None, ended: bool = True) -> str:
        """End (or pause) a run as `status`, a status of run_statuses.STATUSES or a job's own
        word ("passed"), settled there with `outcome` when none is given; the status
        stored."""
        with self._lock:
            row = self.conn.execute("SELECT job FROM runs WHERE id = ?", (run_id,)).fetchone()
            if outcome is None or status not in STATUSES:
                status, settled = settle(row[0] if row else "", status, result)
                outcome = settled if outcome is None else outcome
            self.conn.execute(
                "UPDATE runs SET status = ?, ended = ?, result = ?, outcome = ? WHERE id = ?",
                (status, time.time() if ended else None,
                 json.dumps(redact_value(result), default=str), outcome, run_id),
            )
        return status

    def mark_interrupted(self, run_ids: list[str] | None = None) -> list[str]:
        """Runs recorded as running whose process on this host is gone become "interrupted"
        (a killed CLI, a server restart); the ids changed. `run_ids`: only these."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT id, owner FROM runs WHERE status = 'running'").fetchall()
            dead = [rid for rid, owner in rows
                    if (run_ids is None or rid in run_ids) and not _owner_alive(owner)]
            for rid in dead:
                self.conn.execute(
                    "UPDATE runs SET status = 'interrupted', ended = ?, outcome = '' "
                    "WHERE id = ? AND status = 'running'", (time.time(), rid))
        return dead

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._lock:
            row = self.conn.execute(
                f"SELECT {_COLUMNS} FROM runs WHERE id = ?",
                (run_id,),
            ).fetchone()
        return self._record(row) if row else None

    def list_runs(self, job: str | None = None, limit: int = 50, *,
                  status: str | None = None, offset: int = 0) -> list[RunRecord]:
        """Newest first; `job` and `status` filter, `limit`/`offset` page."""
        sql = f"SELECT {_COLUMNS} FROM runs"
        where, args = [], []
        if job:
            where.append("job = ?")
            args.append(job)
        if status:
            where.append("status = ?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started DESC, rowid DESC LIMIT ? OFFSET ?"
        with self._lock:
            rows = self.conn.execute(sql, (*args, limit, offset)).fetchall()
        return [self._record(r) for r in rows]

    def count_runs(self, job: str | None = None, status: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM runs WHERE (? IS NULL OR job = ?) AND (? IS NULL OR status = ?)"
        with self._lock:
            return self.conn.execute(sql, (job, job, status, status)).fetchone()[0]

    def _add_missing_columns(self) -> None:
        present = {row[1] for row in self.conn.execute("PRAGMA table_info(runs)")}
        add_columns(self.conn, [name for name, _ in _ADDED_COLUMNS if name not in present])

    def _migrate_statuses(self) -> None:
        """Runs an older codeloop stored with its jobs' own words ("passed", "applied",
        "COMPLETE", "error", ...) get the status and outcome of run_statuses.py, in one
        transaction; a store already migrated costs one query that finds nothing."""
        marks = ",".join("?" * len(OLD_STATUSES))
        # Old rows: an old word, or a finished status with no outcome (never written so now).
        where = (f"status IN ({marks}) OR (outcome IS NULL AND status IN "
                 "('failed', 'cancelled', 'interrupted'))")
        rows = self.conn.execute(f"SELECT id, job, status, result FROM runs WHERE {where}",
                                 OLD_STATUSES).fetchall()
        if not rows:
            return
        updates = []
        for run_id, job, word, result in rows:
            try:
                loaded = json.loads(result) if result is not None else None
            except ValueError:
                loaded = None
            updates.append((*settle(job, word, loaded), run_id))
        with self.conn:  # one transaction: all rows or none
            self.conn.execute("BEGIN")
            self.conn.executemany("UPDATE runs SET status = ?, outcome = ? WHERE id = ?",
                                  updates)

    @staticmethod
    def _record(row: tuple[Any, ...]) -> RunRecord:
        status, outcome = row[2], row[7]
        result = json.loads(row[6]) if row[6] is not None else None
        if status not in STATUSES:  # written by an older process since this store opened
            status, outcome = settle(row[1], status, result)
        return RunRecord(
            id=row[0], job=row[1], status=status, started=row[3], ended=row[4],
            input=json.loads(row[5] or "{}"), result=result, outcome=outcome or "",
        )

    # -------------------------------------------------------------- events
    def record_event(self, event: Event) -> None:
        if event.run_id is None or event.type in _SKIPPED_EVENTS:
            return
        with self._lock:
            seq = self._seq.get(event.run_id)
            if seq is None:
                row = self.conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?", (event.run_id,)
                ).fetchone()
                seq = row[0]
            seq += 1
            self._seq[event.run_id] = seq
            self.conn.execute(
                "INSERT INTO events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)",
                (event.run_id, seq, event.ts, event.type, redacted(event).model_dump_json()),
            )

    __call__ = record_event  # a RunStore can be subscribed to an EventBus directly

    def events(self, run_id: str, after_seq: int = 0) -> list[tuple[int, Event]]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT seq, payload FROM events WHERE run_id = ? AND seq > ? ORDER BY seq",
                (run_id, after_seq),
            ).fetchall()
        return [(seq, parse_event(payload)) for seq, payload in rows]

    # -------------------------------------------------------------- LangGraph
    def checkpointer(self):
        """LangGraph's SqliteSaver on the same file (imported lazily: langgraph is slow)."""
        from langgraph.checkpoint.sqlite import SqliteSaver  # before the lock: ~0.8 s once

        with self._lock:  # two threads asking at once get the one saver
            if self._checkpointer is None:
                self._checkpointer = self._new_saver(SqliteSaver)
            return self._checkpointer

    def _new_saver(self, saver_class):
        conn = sqlite3.connect(str(self.path), check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            saver = saver_class(conn)
            saver.setup()
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(f"the run store {self.path} cannot hold conversations: "
                             f"{exc}; choose another file with --store") from exc
        return saver

    def threads(self, prefix: str) -> list[str]:
        """Names of the conversation threads saved under `prefix` (e.g. one workspace's
        `agent:<key>:`), oldest first, the prefix removed."""
        return saved_threads(self.checkpointer(), prefix)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.conn.close()
            self._checkpointer = None
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def saved_threads(checkpointer: Any, prefix: str) -> list[str]:
    """The thread names under `prefix` in a LangGraph SqliteSaver's checkpoints, oldest
    first (for a caller that holds the saver, not the store). A literal prefix compare:
    LIKE would read `_` and `%` in a name as wildcards."""
    with checkpointer.lock:  # the saver's own lock guards its connection
        rows = checkpointer.conn.execute(
            "SELECT thread_id, MIN(rowid) FROM checkpoints WHERE substr(thread_id, 1, ?) = ? "
            "GROUP BY thread_id ORDER BY 2", (len(prefix), prefix),
        ).fetchall()
    return [row[0][len(prefix):] for row in rows]
