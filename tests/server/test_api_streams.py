"""Event streams and the jobs that pause: SSE replay and Last-Event-ID resume (no loss, no
duplicates), a finished run's stream closes, the all-runs stream; a review run that waits
at approval keeps its stream open, is approved (or rejected) through the API and writes the
file and .ai_context.json; the agent job through the API."""

from __future__ import annotations

import json
import threading

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


def test_replay_then_resume_with_last_event_id_loses_and_repeats_nothing(tmp_path):
    with served(tmp_path) as client:
        run_id = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, run_id, {"succeeded"})
        full = sse_messages(client, f"/api/runs/{run_id}/events")
        *events, end = full
        assert end["event"] == "end" and end["data"] == {"run_id": run_id, "status": "succeeded"}
        seqs = [int(m["id"]) for m in events]
        assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= 4
        assert [m["data"]["seq"] for m in events] == seqs
        assert events[0]["data"]["type"] == "stage_start"
        stored = client.app_state.store.events(run_id)
        assert [e.model_dump(mode="json") for _s, e in stored] == [
            {k: v for k, v in m["data"].items() if k != "seq"} for m in events]
        for cut in (1, 3, len(seqs) - 1, len(seqs)):
            rest = sse_messages(client, f"/api/runs/{run_id}/events",
                                headers={"Last-Event-ID": str(cut)})
            assert [int(m["id"]) for m in rest[:-1]] == seqs[cut:]
            assert rest[-1]["event"] == "end"
        by_query = sse_messages(client, f"/api/runs/{run_id}/events?after=2")
        assert [int(m["id"]) for m in by_query[:-1]] == seqs[2:]
        assert client.get("/api/runs/solve-missing/events").status_code == 404


def test_workflow_stream_carries_every_runs_events_in_store_order(tmp_path):
    with served(tmp_path) as client:
        first = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, first, {"succeeded"})
        second = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, second, {"succeeded"})
        total = sum(len(client.app_state.store.events(r)) for r in (first, second))
        messages = sse_messages(client, "/api/workflow/stream?after=0", limit=total)
        ids = [int(m["id"]) for m in messages]
        assert ids == sorted(ids) and len(set(ids)) == total
        assert [m["data"]["run_id"] for m in messages] == (
            [first] * (total - len(client.app_state.store.events(second)))
            + [second] * len(client.app_state.store.events(second)))
        tail = sse_messages(client, "/api/workflow/stream",
                            headers={"Last-Event-ID": str(ids[-3])}, limit=2)
        assert [int(m["id"]) for m in tail] == ids[-2:]


def test_a_last_event_id_past_any_stored_id_is_a_400_not_a_server_error(tmp_path):
    with served(tmp_path) as client:
        run_id = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, run_id, {"succeeded"})
        huge = "9" * 40  # past SQLite's integers: the all-runs stream's query overflowed
        for url in (f"/api/runs/{run_id}/events", "/api/workflow/stream"):
            answer = client.get(url, headers={"Last-Event-ID": huge})
            assert answer.status_code == 400, (url, answer.text)
            assert answer.json()["error"] == "bad request"
            assert "Last-Event-ID" in answer.json()["detail"]
        largest = sse_messages(client, f"/api/runs/{run_id}/events",
                               headers={"Last-Event-ID": str(2**63 - 1)})
        assert [m["event"] for m in largest] == ["end"]  # past the last event: the end
        # not an ASCII number (a latin-1 superscript two): ignored, the whole run replays
        odd = sse_messages(client, f"/api/runs/{run_id}/events",
                           headers={"Last-Event-ID": b"\xb2"})
        assert int(odd[0]["id"]) == 1 and odd[-1]["event"] == "end"


def _collect(client, url, into: list, done: threading.Event) -> None:
    try:
        into.extend(sse_messages(client, url))
    finally:
        done.set()


def test_review_waits_with_its_stream_open_and_approval_writes_the_files(tmp_path):
    ws = review_workspace(tmp_path)
    with served(tmp_path, REVIEW_SCRIPT) as client:
        run_id = start(client, "review", {"workspace": str(ws), "files": ["calc.py"]})
        seen: list = []
        closed = threading.Event()
        reader = threading.Thread(target=_collect, daemon=True, args=(
            client, f"/api/runs/{run_id}/events", seen, closed))
        reader.start()
        waiting = wait_status(client, run_id, {"awaiting_approval"})
        [diff] = waiting["pending_diffs"]
        assert diff["file_path"] == "calc.py" and diff["modified_content"] == FIXED
        assert (diff["added"], diff["removed"]) == (1, 1)
        assert (ws / "calc.py").read_text() != FIXED  # nothing written before approval
        assert waiting["tokens_per_stage"] and waiting["tokens"] > 0
        assert not closed.wait(1.5), "a waiting run's stream must stay open"
        answer = client.post(f"/api/runs/{run_id}/approve",
                             json={"message": "LGTM from API", "digest": waiting["diff_digest"]})
        assert answer.status_code == 202 and answer.json()["status"] == "running"
        again = client.post(f"/api/runs/{run_id}/approve",
                            json={"message": "twice", "digest": waiting["diff_digest"]})
        assert again.status_code == 409
        done = wait_status(client, run_id, {"succeeded"})
        assert closed.wait(20), "the stream closes once the run has ended"
        assert done["result"]["written"] == ["calc.py"] and done["pending_diffs"] == []
    assert (ws / "calc.py").read_text() == FIXED
    history = json.loads((ws / ".ai_context.json").read_text())["workflow_history"]
    assert history[-1]["notes"] == "LGTM from API" and history[-1]["status"] == "applied"
    *events, end = seen
    assert end["data"]["status"] == "succeeded"
    seqs = [int(m["id"]) for m in events]
    assert seqs == list(range(1, len(seqs) + 1))  # one stream across the pause, no gap
    types = [m["data"]["type"] for m in events]
    assert "approval_request" in types and types.index("approval_request") < len(types) - 1
    assert any(t == "debug_log" for t in types)


def test_rejection_goes_back_to_the_model_with_the_message(tmp_path):
    ws = review_workspace(tmp_path)
    with served(tmp_path, REVIEW_SCRIPT) as client:
        run_id = start(client, "review", {"workspace": str(ws), "files": ["calc.py"]})
        wait_status(client, run_id, {"awaiting_approval"})
        answer = client.post(f"/api/runs/{run_id}/reject",
                             json={"message": "keep the old API please"})
        assert answer.status_code == 202
        after = wait_status(client, run_id, {"awaiting_approval", "failed"})
        texts = [json.dumps(e.model_dump()) for _s, e in client.app_state.store.events(run_id)]
        assert any("keep the old API please" in t for t in texts)
        assert after["status"] != "applied"
    assert (ws / "calc.py").read_text() != FIXED  # a rejection writes nothing


def test_review_input_errors_are_400_before_any_run(tmp_path):
    ws = review_workspace(tmp_path)
    with served(tmp_path, REVIEW_SCRIPT) as client:
        nothing = client.post("/api/runs", json={"job": "review", "params": {
            "workspace": str(ws)}})
        assert nothing.status_code == 400 and "nothing to review" in nothing.json()["detail"]
        missing = client.post("/api/runs", json={"job": "review", "params": {
            "workspace": str(ws), "files": ["nope.py"]}})
        assert missing.status_code == 400 and "nope.py" in missing.json()["detail"]
        assert client.get("/api/runs").json()["total"] == 0


def test_agent_job_through_the_api(tmp_path):
    ws = review_workspace(tmp_path)
    replies = [json.dumps({"thought": "look", "tool": "read_file"}),
               json.dumps({"path": "calc.py", "start_line": None, "end_line": None}),
               json.dumps({"thought": "done", "tool": "finish"}),
               json.dumps({"answer": "add() subtracts: it is a bug"})]
    model = write_script(tmp_path, replies, "agent.yaml")
    with served(tmp_path) as client:
        run_id = start(client, "agent", {"workspace": str(ws), "request": "What is wrong?",
                                         "model": model, "init_git": True})
        detail = wait_status(client, run_id, {"succeeded", "failed"})
        assert detail["status"] == "succeeded", detail["result"]
        assert detail["result"]["answer"].endswith("add() subtracts: it is a bug")
        tools = [m["data"] for m in sse_messages(client, f"/api/runs/{run_id}/events")
                 if m["data"].get("type") == "tool_call"]
        assert [t["tool"] for t in tools] == ["read_file"] and "a - b" in tools[0]["result"]
