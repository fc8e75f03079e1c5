"""A server restart loses no run. A review whose process was killed mid-run (SIGKILL while
its model call hung) comes back as interrupted: its stream replays and closes, the list
shows it, and POST /resume takes it up on the same run id from its last checkpoint, through
to approval. A run live when the server stops is recorded as interrupted by the stop and
resumed after the restart. A review waiting for approval can be cancelled (nothing written);
a run recorded by an older CLI (no model-call events) shows the tokens of its result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import ExitStack

from server_kit import (
    ADD_TASK,
    FIXED,
    REVIEW_SCRIPT,
    review_workspace,
    served,
    sse_messages,
    start,
    wait_status,
    write_script,
)

from codeloop.server.model_gate import RunSignals
from codeloop.store import RunStore

# A review process whose model hangs on its first call (an outside server gone silent):
# it prints the run id and "hung" when it is stuck there, and waits to be killed.
HUNG_REVIEW = textwrap.dedent("""
    import sys, threading
    from codeloop.review.service import ReviewRequest, start_review
    from codeloop.store import RunStore
    from codeloop.llm.scripted import ScriptedLLM

    class Hung(ScriptedLLM):
        def complete_json(self, *args, **kwargs):
            print("hung", flush=True)
            threading.Event().wait()

    store = RunStore(sys.argv[1])
    start_review(ReviewRequest(workspace=sys.argv[2], files=["calc.py"], model=sys.argv[3]),
                 Hung([]), store, on_run_id=lambda rid: print(rid, flush=True))
""")


def _killed_review(store_path, ws, model: str) -> str:
    proc = subprocess.Popen([sys.executable, "-c", HUNG_REVIEW, str(store_path), str(ws),
                             model],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        run_id = proc.stdout.readline().strip()
        assert proc.stdout.readline().strip() == "hung"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    return run_id


def test_a_killed_review_is_interrupted_and_resumes_on_the_same_run(tmp_path):
    ws = review_workspace(tmp_path)
    store_path = tmp_path / "runs.sqlite"
    RunStore(store_path).close()
    # the model the run was started with: the resumed run goes on with it
    run_id = _killed_review(store_path, ws, write_script(tmp_path, REVIEW_SCRIPT, "r.yaml"))
    with served(tmp_path, REVIEW_SCRIPT, store=store_path) as client:
        assert run_id in client.app_state.interrupted_at_start
        before = sse_messages(client, f"/api/runs/{run_id}/events")
        assert before[-1]["event"] == "end"
        assert before[-1]["data"]["status"] == "interrupted"
        listed = client.get("/api/runs", params={"status": "interrupted"}).json()["runs"]
        assert [r["id"] for r in listed] == [run_id]
        resumed = client.post(f"/api/runs/{run_id}/resume")
        assert resumed.status_code == 202, resumed.text
        assert resumed.json()["run_id"] == run_id == resumed.json()["resumed_from"]
        waiting = wait_status(client, run_id, {"awaiting_approval"})
        assert waiting["pending_diffs"][0]["modified_content"] == FIXED
        assert client.post(f"/api/runs/{run_id}/resume").status_code == 409  # not interrupted
        client.post(f"/api/runs/{run_id}/approve", json={"message": "after the restart",
                                                          "digest": waiting["diff_digest"]})
        wait_status(client, run_id, {"succeeded"})
        seqs = [int(m["id"]) for m in sse_messages(client, f"/api/runs/{run_id}/events")[:-1]]
        assert seqs == list(range(1, len(seqs) + 1))  # numbered on across the restart
    assert (ws / "calc.py").read_text() == FIXED


def test_a_waiting_review_can_be_cancelled_and_writes_nothing(tmp_path):
    ws = review_workspace(tmp_path)
    with served(tmp_path, REVIEW_SCRIPT) as client:
        run_id = start(client, "review", {"workspace": str(ws), "files": ["calc.py"]})
        wait_status(client, run_id, {"awaiting_approval"})
        cancelled = client.delete(f"/api/runs/{run_id}")
        assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
        detail = client.get(f"/api/runs/{run_id}").json()
        assert detail["status"] == "cancelled" and detail["pending_diffs"] == []
        assert client.post(f"/api/runs/{run_id}/approve", json={}).status_code == 409
        assert sse_messages(client, f"/api/runs/{run_id}/events")[-1]["data"]["status"] == \
            "cancelled"
    assert (ws / "calc.py").read_text() != FIXED and not (ws / ".ai_context.json").exists()


def test_runs_without_model_call_events_show_their_results_tokens(tmp_path):
    store_path = tmp_path / "runs.sqlite"
    with RunStore(store_path) as store:
        with store.run("solve", {"model": "scripted:x"}) as run:
            run.finish("passed", {"totals": {"prompt_tokens": 100, "completion_tokens": 20}})
        with store.run("review", {}) as run:
            run.finish("applied", {"tokens": {"total": 50, "per_node": {}}})
    with served(tmp_path, store=store_path) as client:
        tokens = {r["job"]: r["tokens"] for r in client.get("/api/runs").json()["runs"]}
        assert tokens == {"solve": 120, "review": 50}


def test_a_live_run_is_interrupted_by_the_shutdown_and_resumed_after_the_restart(tmp_path):
    store_path = tmp_path / "runs.sqlite"
    with ExitStack() as model_busy:  # left after the app's shutdown, not before
        with served(tmp_path, serial=frozenset({"scripted"}), store=store_path) as client:
            spec = client.app_state.jobs.models.check_spec(None)
            warm = start(client, "solve", {"task": ADD_TASK})  # the model's gate exists
            wait_status(client, warm, {"succeeded"})
            model_busy.enter_context(client.app_state.jobs.models.gate(spec).hold(
                RunSignals()))  # another run is in a model call
            run_id = start(client, "solve", {"task": ADD_TASK})
            deadline = time.monotonic() + 10
            while (detail := client.get(f"/api/runs/{run_id}").json())["status"] != "queued":
                assert time.monotonic() < deadline, "never shown as queued"
                time.sleep(0.02)
            assert detail["live"]
        # the app has shut down with the run live: the stop itself recorded it
        with RunStore(store_path) as store:
            assert store.get_run(run_id).status == "interrupted"
            assert store.events(run_id)[-1][1].message == "the server stopped"
    with served(tmp_path, store=store_path) as client:  # the restart, on the same store
        assert run_id not in client.app_state.interrupted_at_start  # recorded before
        listed = client.get("/api/runs", params={"status": "interrupted"}).json()["runs"]
        assert [r["id"] for r in listed] == [run_id]
        stream = sse_messages(client, f"/api/runs/{run_id}/events")
        assert stream[-1]["data"] == {"run_id": run_id, "status": "interrupted"}
        resumed = client.post(f"/api/runs/{run_id}/resume")
        assert resumed.status_code == 202, resumed.text
        new_id = resumed.json()["run_id"]
        assert new_id != run_id and resumed.json()["resumed_from"] == run_id
        done = wait_status(client, new_id, {"succeeded", "failed"})
        assert done["status"] == "succeeded" and done["result"]["code"].startswith("def add")
        assert done["input"]["task"]["task_id"] == ADD_TASK["task_id"]  # the same inputs
        old = client.get(f"/api/runs/{run_id}").json()
        assert old["status"] == "cancelled" and old["result"] == {"restarted_as": new_id}


def test_a_build_run_is_resumed_from_the_cli_not_the_api(tmp_path):
    store_path = tmp_path / "runs.sqlite"
    inputs = json.dumps({"request": {"tasks": []}, "out_dir": str(tmp_path / "p"),
                         "stack": "python-api"})
    code = ("import sys; from codeloop.store import RunStore\n"
            "print(RunStore(sys.argv[1]).start_run('build', __import__('json').loads("
            "sys.argv[2])))")  # a build whose process died mid-run
    run_id = subprocess.run([sys.executable, "-c", code, str(store_path), inputs],
                            check=True, capture_output=True, text=True).stdout.strip()
    with served(tmp_path, store=store_path) as client:
        assert run_id in client.app_state.interrupted_at_start
        answer = client.post(f"/api/runs/{run_id}/resume")
        assert answer.status_code == 400, answer.text
        detail = answer.json()["detail"]
        assert "codeloop build" in detail and "--resume" in detail
        assert client.get(f"/api/runs/{run_id}").json()["status"] == "interrupted"
