"""The runs API on the scripted model, real store, real sandbox: start, list (filters,
paging), detail (tokens per stage), errors as {error, detail}, the model gate (queued,
cancel), too many runs, a dead run shown interrupted and resumed."""

from __future__ import annotations

import subprocess
import sys
import time

from server_kit import ADD, ADD_TASK, served, sse_messages, start, wait_status, write_script

from codeloop.server.model_gate import RunSignals
from codeloop.store import RunStore


def test_solve_run_from_start_to_passed_with_tokens_per_stage(tmp_path):
    with served(tmp_path) as client:
        run_id = start(client, "solve", {"task": ADD_TASK})
        detail = wait_status(client, run_id, {"succeeded"})
        assert detail["job"] == "solve" and detail["model"].startswith("scripted:")
        assert detail["result"]["passed"] is True
        assert detail["result"]["code"].startswith("def add(a, b):")
        stage = detail["tokens_per_stage"]["generation"]
        assert stage["calls"] == 1 and stage["total_tokens"] == (
            stage["prompt_tokens"] + stage["completion_tokens"]) > 0
        assert detail["tokens"] == stage["total_tokens"]
        assert detail["events"] >= 4 and detail["ended"] >= detail["started"]
        [row] = client.get("/api/runs").json()["runs"]
        assert row["id"] == run_id and row["status"] == "succeeded"
        assert row["tokens"] == detail["tokens"] and row["age_seconds"] >= 0


def test_list_filters_by_job_and_status_and_pages(tmp_path):
    wrong = "```python\ndef add(a, b):\n    return a - b\n```"
    with served(tmp_path, [ADD]) as client:
        passed = [start(client, "solve", {"task": ADD_TASK}) for _ in range(3)]
        for run_id in passed:
            wait_status(client, run_id, {"succeeded"})
        failing = write_script(tmp_path, [wrong] * 8, "wrong.yaml")
        failed = start(client, "solve", {"task": ADD_TASK, "model": failing,
                                         "max_refinements": 0})
        wait_status(client, failed, {"failed"})
        everything = client.get("/api/runs").json()
        assert everything["total"] == 4 and everything["runs"][0]["id"] == failed  # newest
        only_failed = client.get("/api/runs", params={"status": "failed"}).json()
        assert [r["id"] for r in only_failed["runs"]] == [failed]
        assert client.get("/api/runs", params={"job": "review"}).json()["total"] == 0
        page1 = client.get("/api/runs", params={"limit": 2, "offset": 0}).json()
        page2 = client.get("/api/runs", params={"limit": 2, "offset": 2}).json()
        assert page1["total"] == page2["total"] == 4
        ids = [r["id"] for r in page1["runs"] + page2["runs"]]
        assert sorted(ids) == sorted(passed + [failed]) and len(set(ids)) == 4


def test_solve_params_reach_the_pipeline(tmp_path):
    wrong = "```python\ndef add(a, b):\n    return a - b\n```"
    # Samples that fail somewhere new each time, so no round is stuck (solve/rounds.py).
    samples_replies = [f"```python\ndef add(a, b):\n    return {body}\n```"
                       for body in ("a * b", "0", "a", "-b")]
    with served(tmp_path) as client:
        strategies = {}
        for samples in (None, 2):
            script = write_script(tmp_path, [wrong, "Add.", wrong] + samples_replies,
                                  f"wrong-{samples}.yaml")
            params = {"task": ADD_TASK, "model": script, "max_refinements": 1}
            run_id = start(client, "solve", params | ({"samples_per_round": samples}
                                                      if samples else {}))
            result = wait_status(client, run_id, {"failed"})["result"]
            strategies[samples] = [a["strategy"] for a in result["attempts"]]
        assert strategies[None] == ["draft", "generation", "sample"]  # the default: one
        assert strategies[2] == ["draft", "generation", "sample", "sample"]
        # crosscheck: an untested task's code is compared with samples on proposed calls.
        calls = "```python\nadd(1, 2)\nadd(-1, 1)\n```"
        script = write_script(tmp_path, [ADD, calls, ADD, wrong, ADD], "crosscheck.yaml")
        untested = {k: v for k, v in ADD_TASK.items() if k != "examples"}
        run_id = start(client, "solve", {"task": untested, "model": script, "crosscheck": True})
        # No test ran: the run is "untested" (never "passed"), the agreement in the reason.
        result = wait_status(client, run_id, {"succeeded"})["result"]
        assert result["verdict"] == "Code is untested" and result["passed"] is False
        assert "3 of 4 candidates written independently return the same on 2 call(s)" \
            in result["untested_reason"]
        # edge_checks: on by default; off, code that crashes on an empty input is kept as is
        last = {"signature": "def last_word(text: str) -> str",
                "docstring": "The last word of text ('' when there is none).",
                "examples": "last_word('a b') == 'b'"}
        crashes = "```python\ndef last_word(text: str) -> str:\n    return text.split()[-1]\n```"
        fixed = ("```python\ndef last_word(text: str) -> str:\n    words = text.split()\n"
                 "    return words[-1] if words else ''\n```")
        for checks, expected in ((True, ["draft", "edge"]), (False, ["draft"])):
            script = write_script(tmp_path, [crashes, fixed], f"edges-{checks}.yaml")
            run_id = start(client, "solve", {"task": last, "model": script,
                                             "edge_checks": checks})
            result = wait_status(client, run_id, {"succeeded"})["result"]
            assert [a["strategy"] for a in result["attempts"]] == expected


def test_errors_are_json_with_the_right_status(tmp_path):
    with served(tmp_path) as client:
        missing = client.get("/api/runs/solve-nope")
        assert missing.status_code == 404
        assert missing.json()["error"] == "not found" and "solve-nope" in missing.json()["detail"]
        bad_id = client.get("/api/runs/..%2Fetc")
        assert bad_id.status_code in (404, 422) and set(bad_id.json()) == {"error", "detail"}
        unknown_job = client.post("/api/runs", json={"job": "launch", "params": {}})
        assert unknown_job.status_code == 422 and set(unknown_job.json()) == {"error", "detail"}
        no_def = client.post("/api/runs", json={"job": "solve", "params": {"task": {
            "signature": "add(a, b)", "docstring": "Sum."}}})
        assert no_def.status_code == 422 and "signature" in no_def.json()["detail"]
        bad_signature = client.post("/api/runs", json={"job": "solve", "params": {"task": {
            "signature": "def add(a, b", "docstring": "Sum."}}})
        assert bad_signature.status_code == 400
        assert bad_signature.json()["detail"].startswith("task.signature")
        not_json = client.post("/api/runs", content=b"{", headers={
            "content-type": "application/json"})
        assert not_json.status_code == 422
        bad_limit = client.get("/api/runs", params={"limit": 0})
        assert bad_limit.status_code == 422 and "limit" in bad_limit.json()["detail"]
        bad_model = client.post("/api/runs", json={"job": "solve", "params": {
            "task": ADD_TASK, "model": "nonsense:?"}})
        assert bad_model.status_code == 400 and bad_model.json()["error"] == "model"
        no_samples = client.post("/api/runs", json={"job": "solve", "params": {
            "task": ADD_TASK, "samples_per_round": 0}})
        assert no_samples.status_code == 422 and "samples_per_round" in no_samples.json()["detail"]
        bad_seed = client.post("/api/runs", json={"job": "solve", "params": {
            "task": ADD_TASK, "seed": -1}})
        assert bad_seed.status_code == 422 and "seed" in bad_seed.json()["detail"]
        assert client.get("/api/runs").json()["total"] == 0  # nothing started


def test_queued_while_the_model_is_busy_then_cancelled_between_model_calls(tmp_path):
    with served(tmp_path, serial=frozenset({"scripted"})) as client:
        spec = client.app_state.jobs.models.check_spec(None)
        first = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, first, {"succeeded"})
        gate = client.app_state.jobs.models.gate(spec)
        with gate.hold(RunSignals()):  # another run is in a model call
            run_id = start(client, "solve", {"task": ADD_TASK})  # waits for the model
            deadline = time.monotonic() + 10
            while client.get(f"/api/runs/{run_id}").json()["status"] != "queued":
                assert time.monotonic() < deadline, "never shown as queued"
                time.sleep(0.02)
            listed = client.get("/api/runs", params={"limit": 1}).json()["runs"][0]
            assert listed["id"] == run_id and listed["status"] == "queued"
            # the status filter knows queued (never stored: the live handle says it)
            queued = client.get("/api/runs", params={"status": "queued"}).json()
            assert [r["id"] for r in queued["runs"]] == [run_id] and queued["total"] == 1
            assert client.get("/api/runs", params={"status": "queued",
                                                   "job": "agent"}).json()["total"] == 0
            with RunStore(tmp_path / "runs.sqlite") as cli_store, \
                    cli_store.run("agent", {"via": "cli"}) as cli_run:  # another process's
                running = client.get("/api/runs", params={"status": "running"}).json()
                cli_run.finish("done", {})
            assert [r["id"] for r in running["runs"]] == [cli_run.id]  # not the queued one
            assert running["total"] == 1 and running["runs"][0]["status"] == "running"
            cancel = client.delete(f"/api/runs/{run_id}")
            assert cancel.status_code == 202 and cancel.json()["status"] == "cancelling"
            detail = wait_status(client, run_id, {"cancelled"})
        assert detail["tokens"] == 0  # it never reached the model
        events = sse_messages(client, f"/api/runs/{run_id}/events")
        assert events[-1]["event"] == "end" and events[-1]["data"]["status"] == "cancelled"
        assert any(m["data"].get("message") == "cancelled through the API" for m in events)
        again = client.delete(f"/api/runs/{run_id}")
        assert again.status_code == 409 and "cancelled" in again.json()["detail"]
        assert client.delete("/api/runs/solve-unknown").status_code == 404


def test_too_many_live_runs_is_429(tmp_path):
    with served(tmp_path, serial=frozenset({"scripted"}), max_live=1) as client:
        spec = client.app_state.jobs.models.check_spec(None)
        warm = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, warm, {"succeeded"})
        with client.app_state.jobs.models.gate(spec).hold(RunSignals()):
            held = start(client, "solve", {"task": ADD_TASK})
            refused = client.post("/api/runs", json={"job": "solve", "params": {"task": ADD_TASK}})
            assert refused.status_code == 429 and refused.json()["error"] == "too many runs"
        wait_status(client, held, {"succeeded"})


def _dead_run(store_path, job: str, inputs: dict) -> str:
    """A run left 'running' by a process that died (a killed server)."""
    code = ("import json, sys; from codeloop.store import RunStore\n"
            "s = RunStore(sys.argv[1]); print(s.start_run(sys.argv[2], json.loads(sys.argv[3])))")
    import json

    return subprocess.run([sys.executable, "-c", code, str(store_path), job,
                           json.dumps(inputs)], check=True, capture_output=True,
                          text=True).stdout.strip()


def test_a_run_whose_server_died_is_interrupted_and_resumes_as_a_new_run(tmp_path):
    store = tmp_path / "runs.sqlite"
    with served(tmp_path) as client:  # creates the store, and knows the default model
        params = {"task": ADD_TASK, "model": None, "max_refinements": 3, "plan_first": False}
        finished = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, finished, {"succeeded"})
    dead = _dead_run(store, "solve", {"params": params, "via": "server"})
    with served(tmp_path) as client:  # a restart: the dead run is marked at startup
        assert dead in client.app_state.interrupted_at_start
        listed = {r["id"]: r["status"] for r in client.get("/api/runs").json()["runs"]}
        assert listed[dead] == "interrupted"
        not_interrupted = client.post(f"/api/runs/{finished}/resume")
        assert not_interrupted.status_code == 409
        resumed = client.post(f"/api/runs/{dead}/resume")
        assert resumed.status_code == 202, resumed.text
        body = resumed.json()
        assert body["resumed_from"] == dead and body["run_id"] != dead
        assert wait_status(client, body["run_id"], {"succeeded"})["result"]["passed"]
        old = client.get(f"/api/runs/{dead}").json()
        assert old["status"] == "cancelled" and old["result"] == {"restarted_as": body["run_id"]}
        twice = client.post(f"/api/runs/{dead}/resume")
        assert twice.status_code == 409


def test_approve_and_reject_refuse_runs_that_are_not_waiting(tmp_path):
    with served(tmp_path) as client:
        run_id = start(client, "solve", {"task": ADD_TASK})
        wait_status(client, run_id, {"succeeded"})
        for verb in ("approve", "reject"):
            answer = client.post(f"/api/runs/{run_id}/{verb}", json={"message": "x"})
            assert answer.status_code == 409 and "review" in answer.json()["detail"]
        assert client.post("/api/runs/review-x/approve", json={}).status_code == 404


def test_info_names_the_model_roots_and_jobs(tmp_path):
    with served(tmp_path) as client:
        info = client.get("/api/info").json()
        assert info["roots"] == [str(tmp_path.resolve())]
        assert info["model"].startswith("scripted:") and info["auth"] is True  # always asked
        assert {"solve", "agent", "review"} <= set(info["jobs"])
        page = client.get("/")
        assert page.status_code == 200 and 'src="/static/app.js"' in page.text
        assert client.get("/static/debug_panel.js").status_code == 200
