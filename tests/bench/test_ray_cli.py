"""`codeloop bench --executor ray` as a user runs it, against a cluster started with
`ray start --head` on 127.0.0.1: Ctrl-C cancels the outstanding units, a killed driver leaves
a run that --resume finishes with every problem once; and without Ray, one line saying what to
install."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from ray_support import records, unit_pids, wait_for, write_script

pytestmark = pytest.mark.ray
if not os.environ.get("CI"):
    pytest.importorskip("ray")

RAY = str(Path(sys.executable).with_name("ray"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def head():
    """A head node with 2 CPUs, as `ray start` makes one for users; `--block` keeps it in the
    foreground, so stopping that one process stops this cluster and no other one."""
    port, client_port = _free_port(), _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen([RAY, "start", "--head", "--node-ip-address=127.0.0.1",
                             f"--port={port}", f"--ray-client-server-port={client_port}",
                             "--num-cpus=2", "--include-dashboard=false",
                             "--disable-usage-stats", "--block"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    address = f"127.0.0.1:{port}"
    probe = [sys.executable, "-c", ("import ray, sys; ray.init(address=sys.argv[1], "
             "log_to_driver=False); ray.shutdown()"), address]
    ready = wait_for(lambda: proc.poll() is None and subprocess.run(
        probe, capture_output=True, timeout=120, env={**env, "RAY_AUTH_MODE": "token"},
        check=False).returncode == 0, timeout=180, step=1.0)
    assert ready, "ray start --head did not come up"
    yield {"gcs": address, "client": f"ray://127.0.0.1:{client_port}"}
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()


def _command(model: str, out: Path, address: str, limit: int) -> list[str]:
    return [sys.executable, "-m", "codeloop", "bench", "humaneval", "--model", model,
            "--limit", str(limit), "--out", str(out), "--executor", "ray",
            "--ray-address", address, "--workers", "2"]


def _wait_for_lines(path: Path, count: int, proc: subprocess.Popen, timeout=180) -> None:
    assert wait_for(lambda: (path.is_file() and path.read_text().count("\n") >= count)
                    or proc.poll() is not None, timeout=timeout)
    assert proc.poll() is None, proc.communicate()[1]


def test_ctrl_c_and_a_killed_driver_leave_a_run_resume_finishes_once(head, tmp_path,
                                                                     humaneval):
    # Enough work (16 × 2.5 s on 2 workers) that the signals land mid-run even under load.
    problems = list(humaneval.values())[:16]
    model = write_script(tmp_path / "script.json", problems, delay=2.5)
    out = tmp_path / "run"
    results = out / "results.jsonl"
    command = _command(model, out, head["gcs"], len(problems))

    # Ctrl-C: the outstanding units are cancelled, the finished ones kept, exit 130. Sent as
    # SIGTERM, which the CLI takes as Ctrl-C: a process started in the background (as CI
    # runs the suite) inherits SIGINT ignored.
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_lines(results, 1, proc)
    proc.send_signal(signal.SIGTERM)
    _stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "--resume" in stderr
    after_interrupt = len(records(out))
    assert 1 <= after_interrupt < len(problems)
    assert wait_for(lambda: not unit_pids(), timeout=30), "cancelled units still running"

    # A killed driver: no goodbye at all.
    proc = subprocess.Popen(command + ["--resume"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _wait_for_lines(results, after_interrupt + 1, proc)
    proc.kill()
    proc.communicate(timeout=60)
    after_kill = len(records(out))
    assert after_kill > after_interrupt

    done = subprocess.run(command + ["--resume", "--json"], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    ids = [r["task_id"] for r in records(out)]
    assert sorted(ids) == sorted(p.task_id for p in problems)  # each once, none lost
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["passed"] == len(problems)
    assert summary["options"]["executor"] == "ray"
    run = json.loads((out / "run.json").read_text())
    assert len(run["resumed"]) == 2


def test_a_ray_client_address_runs_the_units_on_that_cluster(head, tmp_path, humaneval):
    problems = list(humaneval.values())[:3]
    model = write_script(tmp_path / "script.json", problems, wrong={problems[1].task_id})
    out = tmp_path / "run"
    done = subprocess.run(_command(model, out, head["client"], 3) + ["--json"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert f"executor: ray at {head['client']}" in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["passed"] == 2
    assert sorted(r["task_id"] for r in records(out)) == sorted(p.task_id for p in problems)


def test_without_ray_installed_it_says_what_to_install(tmp_path, humaneval):
    model = write_script(tmp_path / "script.json", list(humaneval.values())[:1])
    # The interpreter as it is where Ray is not installed: `import ray` fails.
    launcher = ("import sys; sys.modules['ray'] = None; sys.argv[0] = 'codeloop'; "
                "from codeloop.cli import main; main()")
    result = subprocess.run(
        [sys.executable, "-c", launcher, "bench", "humaneval", "--model", model, "--limit", "1",
         "--out", str(tmp_path / "run"), "--executor", "ray"],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0
    assert "pip install 'codeloop[ray]'" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_an_unknown_executor_is_one_line(tmp_path, humaneval):
    model = write_script(tmp_path / "script.json", list(humaneval.values())[:1])
    result = subprocess.run(
        [sys.executable, "-m", "codeloop", "bench", "humaneval", "--model", model, "--limit",
         "1", "--out", str(tmp_path / "run"), "--executor", "dask"],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert "unknown --executor 'dask': local or ray" in result.stderr
    assert "Traceback" not in result.stderr
