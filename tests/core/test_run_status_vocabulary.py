"""One status set for every run, and the job's outcome beside it, in the store: new runs are
stored with the set's words whatever word the job finished with, and a store an older
codeloop wrote with its jobs' own words (passed, applied, COMPLETE, step_cap, error, ...) is
read with the new ones (real SQLite file, written the old way)."""

from __future__ import annotations

import ast
import json
import sqlite3
from pathlib import Path

import pytest

import codeloop
from codeloop.run_statuses import OLD_STATUSES, STATUSES, settle
from codeloop.store import RunStore, add_columns

OLD_SCHEMA = """
CREATE TABLE runs (id TEXT PRIMARY KEY, job TEXT NOT NULL, status TEXT NOT NULL,
    started REAL NOT NULL, ended REAL, input TEXT NOT NULL DEFAULT '{}', result TEXT);
CREATE TABLE events (run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
    ts REAL NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (run_id, seq));
"""
BLOCKED_BUILD = {"status": "COMPLETE", "total_tasks": 5, "completed_tasks": ["T1", "T2", "T3"],
                 "blocked_tasks": ["T4", "T5"], "failed_tasks": {}}
WHOLE_BUILD = {"status": "COMPLETE", "total_tasks": 2, "completed_tasks": ["T1", "T2"],
               "blocked_tasks": [], "failed_tasks": {}}
# (id, job, old status, result) -> (status, outcome) once read
OLD_RUNS = [
    (("solve-1", "solve", "passed", {}), ("succeeded", "tests passed")),
    (("solve-2", "solve", "untested", {}), ("succeeded", "untested")),
    (("solve-3", "solve", "failed", {}), ("failed", "tests failed")),
    (("review-1", "review", "applied", {}), ("succeeded", "applied")),
    (("review-2", "review", "blocked", {"message": "Blocked (rejected 3 times)"}),
        ("failed", "blocked: Blocked (rejected 3 times)")),
    (("review-3", "review", "rejected", {}), ("failed", "rejected")),
    (("review-4", "review", "awaiting_approval", {}), ("awaiting_approval", "")),
    (("review-5", "review", "error", {"error": "model gone"}), ("failed", "error: model gone")),
    (("agent-1", "agent", "done", {}), ("succeeded", "done")),
    (("agent-2", "agent", "step_cap", {}), ("failed", "step cap")),
    (("agent-3", "agent", "token_budget", {}), ("failed", "token budget")),
    (("agent-4", "agent", "loop", {}), ("failed", "loop")),
    (("agent-5", "agent", "needs_review", {}), ("failed", "needs review")),
    (("build-1", "build", "complete", BLOCKED_BUILD), ("failed",
                                                      "3 of 5 tasks merged, 2 blocked")),
    (("build-2", "build", "COMPLETE", WHOLE_BUILD), ("succeeded", "2 of 2 tasks merged")),
    (("ask-1", "ask", "completed", {}), ("succeeded", "answered")),
    (("solve-4", "solve", "restarted", {"restarted_as": "solve-9"}),
        ("cancelled", "restarted as solve-9")),
    (("solve-5", "solve", "interrupted", {}), ("interrupted", "")),
    (("solve-6", "solve", "cancelled", None), ("cancelled", "")),
    (("review-6", "review", "paused", {}), ("awaiting_approval", "")),
]


def _old_store(path: Path) -> None:
    """A store as an older codeloop wrote it: no owner, no outcome column, the old words."""
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    for n, ((run_id, job, status, result), _new) in enumerate(OLD_RUNS):
        conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (run_id, job, status, 1_000.0 + n, 1_001.0 + n,
                      json.dumps({"request": f"do {run_id}"}),
                      None if result is None else json.dumps(result)))
    conn.commit()
    conn.close()


def test_an_old_store_is_read_with_the_new_words_and_stays_readable(tmp_path):
    path = tmp_path / "old.sqlite"
    _old_store(path)
    with RunStore(path) as store:
        for (run_id, _job, _old, _result), (status, outcome) in OLD_RUNS:
            record = store.get_run(run_id)
            assert (record.status, record.outcome) == (status, outcome), run_id
        succeeded = {r.id for r in store.list_runs(status="succeeded", limit=100)}
        assert succeeded == {"solve-1", "solve-2", "review-1", "agent-1", "build-2", "ask-1"}
        assert store.count_runs(status="awaiting_approval") == 2
    # migrated in the file itself: every row holds a word of the set, and opens again
    conn = sqlite3.connect(path)
    stored = {row[0] for row in conn.execute("SELECT status FROM runs")}
    conn.close()
    assert stored <= set(STATUSES) and not stored & set(OLD_STATUSES)
    with RunStore(path) as store:
        assert store.get_run("build-1").outcome == "3 of 5 tasks merged, 2 blocked"


def test_a_row_an_older_process_writes_after_opening_is_read_with_the_new_words(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        run_id = store.start_run("solve", {})
        store.conn.execute("UPDATE runs SET status = 'passed' WHERE id = ?", (run_id,))
        record = store.get_run(run_id)
        assert (record.status, record.outcome) == ("succeeded", "tests passed")


def test_new_runs_store_the_set_words_whatever_the_job_finished_with(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as store:
        with store.run("solve", {}) as run:
            run.finish("passed", {})
        assert run.status == "succeeded"
        with store.run("build", {}) as built:
            built.finish("complete", BLOCKED_BUILD)  # blocked tasks: not a success
        with store.run("agent", {}) as agent:
            agent.finish("succeeded", {}, outcome="done")
        with pytest.raises(RuntimeError), store.run("ask", {}) as broken:
            raise RuntimeError("the index is gone")
        got = {r.id: (r.status, r.outcome) for r in store.list_runs()}
    assert got[run.id] == ("succeeded", "tests passed")
    assert got[built.id] == ("failed", "3 of 5 tasks merged, 2 blocked")
    assert got[agent.id] == ("succeeded", "done")
    assert got[broken.id] == ("failed", "error: the index is gone")


@pytest.mark.parametrize("word", ["running", "awaiting_approval", "queued"])
def test_a_run_cannot_finish_as_a_live_or_waiting_status(tmp_path, word):
    with RunStore(tmp_path / "runs.sqlite") as store, store.run("solve", {}) as run:
        with pytest.raises(ValueError):
            run.finish(word, {})
        run.finish("failed", {})


def test_every_job_word_settles_into_the_set():
    from codeloop.run_statuses import JOB_WORDS

    for job, words in JOB_WORDS.items():
        for word in words:
            assert settle(job, word, {})[0] in STATUSES, (job, word)
    assert settle("solve", "some new word", {}) == ("failed", "unknown status: some new word")


def test_store_and_store_run_do_not_import_each_other():
    """Issue 52 §6: no import cycle between the store and a run's lifecycle."""
    source = Path(codeloop.__file__).parent / "store_run.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert "codeloop.store" not in imported


def test_a_column_another_process_added_first_is_no_error(tmp_path):
    # two CLI runs opening one older store together: both saw no owner column, and the
    # second's ALTER failed with "duplicate column name: owner" (ask's SIGTERM test)
    path = tmp_path / "old.sqlite"
    _old_store(path)
    seen_by_both = [row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(runs)")]
    assert "owner" not in seen_by_both
    with RunStore(path) as first:  # the first adds the columns
        assert first.get_run("solve-1") is not None
    conn = sqlite3.connect(path)
    add_columns(conn, ["owner", "outcome"])  # the second, on what it saw before
    columns = [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
    assert columns.count("owner") == 1 and columns.count("outcome") == 1
    with pytest.raises(sqlite3.OperationalError):  # any other failure still raises
        conn.execute("DROP TABLE runs")
        add_columns(conn, ["owner"])
    conn.close()
