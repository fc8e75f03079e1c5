"""SIGTERM (`timeout`, `kill`, a CI limit) ends `codeloop solve`, `agent`, `review` and
`ask` as Ctrl-C does: the run is recorded as interrupted (not left "running"; review's
--resume takes it up), --json still prints a result saying so, and the exit code is 130.
Each runs as a real process on a scripted model whose replies are slow, so the signal comes
while the job waits on the model. (`build`, with its worker threads and --resume:
tests/build/test_build_sigterm.py.)"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from codeloop.store import RunStore

CLI = [sys.executable, "-m", "codeloop"]
HANG_GUARD = 60  # seconds: only so that a hang fails the test instead of blocking the suite
ADD = "```python\ndef add(a, b):\n    return a + b\n```"


def slow_script(tmp_path: Path) -> str:
    path = tmp_path / "slow.yaml"
    path.write_text(yaml.safe_dump({"replies": [ADD] * 10, "delay_seconds": 300}))
    return f"scripted:{path}"


def job_args(job: str, tmp_path: Path) -> list[str]:
    if job == "solve":
        tasks = tmp_path / "tasks.json"
        tasks.write_text(json.dumps([{"task_id": "add", "signature": "def add(a, b)",
                                      "docstring": "Sum.", "examples": "add(1, 2) == 3"}]))
        return ["solve", "--task-file", str(tasks)]
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    if job == "agent":
        return ["agent", "--home", str(ws), "-p", "Add a docstring to add"]
    if job == "review":
        return ["review", "Add a docstring to add", "-w", str(ws), "--no-input"]
    return ["ask", "What does add return?", "--repo", str(ws)]


def running_run(db: Path, job: str) -> str | None:
    if not db.exists():
        return None
    with RunStore(db) as store:
        runs = store.list_runs(job)
    return runs[0].id if runs and runs[0].status == "running" else None


@pytest.mark.parametrize("job", ["solve", "agent", "review", "ask"])
def test_sigterm_records_the_run_interrupted_and_prints_json(tmp_path, job):
    db = tmp_path / "runs.sqlite"
    stdout, stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with stdout.open("w") as sink, stderr.open("w") as err:
        proc = subprocess.Popen([*CLI, *job_args(job, tmp_path), "--model",
                                 slow_script(tmp_path), "--store", str(db), "--json"],
                                stdout=sink, stderr=err, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + HANG_GUARD
            while (run_id := running_run(db, job)) is None:
                assert proc.poll() is None, stderr.read_text()
                assert time.monotonic() < deadline, "the run never started"
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=HANG_GUARD)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert code == 130, stderr.read_text()[-3000:]
    result = json.loads(stdout.read_text())
    assert result["run_id"] == run_id and result["status"] == "interrupted"
    with RunStore(db) as store:
        assert store.get_run(run_id).status == "interrupted"
