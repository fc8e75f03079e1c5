"""SIGTERM (`timeout`, `kill`, a CI limit) stops `codeloop build` as Ctrl-C does, within
the model call in flight: the task agent working in a worker thread makes no further call,
the run is recorded as interrupted, --json still prints the result, and --resume finishes
the same run. The model is scripted and slow (each reply takes a second), so the agent is
mid-task when the signal comes; how far it got after the signal is counted in model calls."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml
from build_replies import func_task, tasks

from codeloop.build.repo import merged_tasks
from codeloop.store import RunStore

CLI = [sys.executable, "-m", "codeloop"]
HANG_GUARD = 120  # seconds: only so that a hang fails the test instead of blocking the suite


def write_script(path: Path, agents: dict, delay: float = 0.0) -> str:
    path.write_text(yaml.safe_dump({"agents": agents, "delay_seconds": delay}))
    return f"scripted:{path}"


def model_calls(db: Path, run_id: str) -> int:
    with RunStore(db) as store:
        return sum(1 for _, e in store.events(run_id) if e.type == "llm_call")


def wait_for(predicate, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not predicate():
        assert proc.poll() is None, f"the build ended before {what}"
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.1)


def test_sigterm_interrupts_a_build_with_json_and_resume_finishes_it(tmp_path):
    request = tmp_path / "tasks.json"
    request.write_text(json.dumps(tasks(("T1",), ("T2", "T1"))))
    out, db = tmp_path / "project", tmp_path / "runs.sqlite"
    slow = write_script(tmp_path / "slow.yaml", {"task:T1": func_task("t1", "1"),
                                                 "task:T2": func_task("t2", "2")}, delay=1.0)
    args = [*CLI, "build", str(request), "--out", str(out), "--store", str(db),
            "--max-parallel", "1"]
    stdout, stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with stdout.open("w") as sink, stderr.open("w") as err:
        proc = subprocess.Popen([*args, "--model", slow, "--json"], stdout=sink, stderr=err,
                                stdin=subprocess.DEVNULL)
        try:
            # T1's agent has made a model call and is waiting on the next reply.
            wait_for(lambda: "T1: writing tests" in stderr.read_text(), proc,
                     "T1's agent start")
            with RunStore(db) as store:
                (run,) = store.list_runs("build")
            wait_for(lambda: model_calls(db, run.id) >= 1, proc, "a model call")
            proc.send_signal(signal.SIGTERM)
            calls_at_signal = model_calls(db, run.id)
            code = proc.wait(timeout=HANG_GUARD)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert code == 130, stderr.read_text()[-3000:]
    # At most the call in flight completed: the worker started no new call, attempt or task.
    assert model_calls(db, run.id) - calls_at_signal <= 1
    result = json.loads(stdout.read_text())
    assert result["run_id"] == run.id and result["run_status"] == "interrupted"
    assert "T1" not in result["completed_tasks"]
    assert result["resume"].endswith("--resume")  # the command that goes on
    with RunStore(db) as store:
        assert store.get_run(run.id).status == "interrupted"
    assert merged_tasks(out) == []

    # No integration script: its model error is a note, the tests decide (they pass).
    second = write_script(tmp_path / "second.yaml", {
        "task:T1": func_task("t1", "1"), "task:T2": func_task("t2", "2")})
    done = subprocess.run([*args, "--model", second, "--resume", "--json"],
                          capture_output=True, text=True, timeout=HANG_GUARD * 2, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    final = json.loads(done.stdout)
    assert final["run_id"] == run.id and final["status"] == "COMPLETE"
    assert merged_tasks(out) == ["T1", "T2"]
    with RunStore(db) as store:
        assert store.get_run(run.id).status == "succeeded"
