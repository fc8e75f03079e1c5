"""The API's run fields: `status` from the one set, `outcome` beside it and `asked`, the same
as the CLI and the store, for runs the server started and for runs an older codeloop stored
with its jobs' own words; the status filter takes the set's words only."""

from __future__ import annotations

import json
import sqlite3

from server_kit import ADD_TASK, served, start, wait_status

from codeloop.store import RunStore

BLOCKED_BUILD = {"status": "COMPLETE", "total_tasks": 5, "completed_tasks": ["T1", "T2", "T3"],
                 "blocked_tasks": ["T4", "T5"], "failed_tasks": {}}


def test_a_solve_run_is_succeeded_with_its_outcome_and_what_was_asked(tmp_path):
    with served(tmp_path) as client:
        run_id = start(client, "solve", {"task": ADD_TASK})
        detail = wait_status(client, run_id, {"succeeded"})
        assert detail["outcome"] == "tests passed"
        assert detail["asked"].startswith(f"{ADD_TASK['task_id']}: def add")
        [row] = client.get("/api/runs", params={"status": "succeeded"}).json()["runs"]
        assert (row["id"], row["status"], row["outcome"]) == (run_id, "succeeded",
                                                              "tests passed")


def test_old_runs_and_a_blocked_build_read_with_the_set_words(tmp_path):
    store = tmp_path / "runs.sqlite"
    with RunStore(store) as runs:
        with runs.run("build", {"out_dir": str(tmp_path / "todo"), "model": "m",
                                "request": {"tasks": []}}) as built:
            built.finish("complete", BLOCKED_BUILD)
        old = runs.start_run("review", {"workspace": str(tmp_path), "request": "fix it"})
    conn = sqlite3.connect(store)  # as an older codeloop left it: its own word, no outcome
    conn.execute("UPDATE runs SET status = 'applied', outcome = NULL, result = ? WHERE id = ?",
                 (json.dumps({"message": "Applied"}), old))
    conn.commit()
    conn.close()
    with served(tmp_path, store=store) as client:
        rows = {r["id"]: r for r in client.get("/api/runs").json()["runs"]}
        assert (rows[built.id]["status"], rows[built.id]["outcome"]) == (
            "failed", "3 of 5 tasks merged, 2 blocked")
        assert (rows[old]["status"], rows[old]["outcome"], rows[old]["asked"]) == (
            "succeeded", "applied", "fix it")
        detail = client.get(f"/api/runs/{built.id}").json()
        assert detail["status"] == "failed" and detail["build"]["run_status"] == "failed"
        assert [r["id"] for r in client.get("/api/runs", params={"status": "failed"}).json()[
            "runs"]] == [built.id]
        refused = client.get("/api/runs", params={"status": "passed"})
        assert refused.status_code == 422 and "succeeded" in refused.text
