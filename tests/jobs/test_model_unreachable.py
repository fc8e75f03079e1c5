"""A model that cannot be reached is one clear error, at once, in every job: each job's CLI,
run as a real process against an `openai:` model whose URL is a closed port on 127.0.0.1
(a real refused connection), ends with one line naming the URL after one connection
attempt, with no retries and no traceback. The attempts are counted by a Python audit hook
on `socket.connect` in the CLI's own process (an observer; nothing is replaced)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from codeloop.store import RunStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "build" / "todo"
# The real CLI entry, with an audit hook that counts the connections to the closed port.
COUNTING_CLI = """
import atexit, os, sys
port, attempts = int(os.environ["CLOSED_PORT"]), []
def count(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple) and args[1][1:2] == (port,):
        attempts.append(1)
sys.addaudithook(count)
atexit.register(lambda: open(os.environ["ATTEMPTS_FILE"], "w").write(str(len(attempts))))
from codeloop.cli import main
sys.argv = ["codeloop", *sys.argv[1:]]
main()
"""


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: bound once, then closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text('def add(a, b):\n    """Sum."""\n    return a + b\n')
    (ws / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n"
                                     "    assert add(1, 2) == 3\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws


def job_args(job: str, tmp_path: Path) -> list[str]:
    if job == "solve":
        tasks = tmp_path / "tasks.json"
        tasks.write_text(json.dumps([{"task_id": "add", "signature": "def add(a, b)",
                                      "docstring": "Sum.", "examples": "add(1, 2) == 3"}]))
        return ["solve", "--task-file", str(tasks)]
    if job == "agent":
        return ["agent", "--home", str(workspace(tmp_path)), "-p", "Add a docstring to add"]
    if job == "review":
        return ["review", "Add input validation to add", "-w", str(workspace(tmp_path)),
                "--no-input"]
    if job == "build":
        return ["build", str(EXAMPLE / "tasks.json"), "--out", str(tmp_path / "out")]
    return ["ask", "What does add return?", "--repo", str(workspace(tmp_path))]


@pytest.mark.parametrize("job", ["solve", "agent", "review", "build", "ask"])
def test_an_unreachable_model_stops_every_job_at_once_in_one_line(tmp_path, job):
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    store = tmp_path / "runs.sqlite"
    attempts = tmp_path / "attempts"
    env = {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "not-needed",
           "CODELOOP_MODEL_STUB_URLS": url, "CLOSED_PORT": str(port),
           "ATTEMPTS_FILE": str(attempts), "COLUMNS": "300", "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", COUNTING_CLI, *job_args(job, tmp_path),
                           "--model", "openai:some-model", "--store", str(store)],
                          check=False, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL,
                          cwd=tmp_path, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    assert f"cannot reach the model openai:some-model at {url}" in errors[0], output
    # One connection attempt in all: no retry in the model layer, no retried task or round.
    assert attempts.read_text() == "1", output
    if store.exists():  # a run that was opened says why it ended
        with RunStore(store) as runs:
            records = runs.list_runs(job)
        assert [r.status for r in records] in ([], ["failed"])
        assert all("cannot reach the model" in str(r.result) for r in records)
