"""Kill a build during generation (SIGKILL: no clean-up at all), then `--resume`: the merged
task is not redone (its agent has no script the second time: redoing it would fail), the
task in flight is redone, the same run finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml
from build_replies import func_task, no_wiring, tasks

from codeloop.build.repo import merged_tasks
from codeloop.gitutil import git, status
from codeloop.store import RunStore

CLI = [sys.executable, "-m", "codeloop"]


def write_script(path: Path, agents: dict) -> str:
    path.write_text(yaml.safe_dump({"agents": agents}))
    return f"scripted:{path}"


def start_and_kill(tmp_path: Path) -> tuple[list[str], Path, Path, str]:
    """A build of T1 and T2 killed once T1 is merged (T2's agent still working): the CLI
    arguments, the project, the store and the killed run's id."""
    request = tmp_path / "tasks.json"
    request.write_text(json.dumps(tasks(("T1",), ("T2",))))
    out, db = tmp_path / "project", tmp_path / "runs.sqlite"
    slow = func_task("t2", "2", test_extra="import time\n\ntime.sleep(60)\n")
    first = write_script(tmp_path / "first.yaml", {"task:T1": func_task("t1", "1"),
                                                   "task:T2": slow})
    args = [*CLI, "build", str(request), "--out", str(out), "--store", str(db),
            "--max-parallel", "2"]
    proc = subprocess.Popen([*args, "--model", first], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / ".git").is_dir() and merged_tasks(out) == ["T1"]:
                break
            time.sleep(0.2)
        assert merged_tasks(out) == ["T1"], "T1 was never merged"
        assert proc.poll() is None, "the build ended before the kill"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with RunStore(db) as store:
        killed, = store.list_runs("build")
        assert killed.status == "running"  # as the dead process left it
    return args, out, db, killed.id


def second_script(tmp_path: Path) -> str:
    return write_script(tmp_path / "second.yaml", {
        "task:T2": func_task("t2", "2"),  # T1 has no script: redoing it would fail
        "integration": no_wiring()})


def test_kill_during_generation_then_resume(tmp_path):
    args, out, db, killed_id = start_and_kill(tmp_path)
    second = second_script(tmp_path)
    done = subprocess.run([*args, "--model", second, "--resume", "--json"],
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["run_id"] == killed_id
    assert result["status"] == "COMPLETE"
    assert result["completed_tasks"] == ["T1", "T2"]
    assert merged_tasks(out) == ["T1", "T2"]  # T1's commit once, not twice
    with RunStore(db) as store:
        assert store.get_run(killed_id).status == "succeeded"
        messages = [e.message for _, e in store.events(killed_id) if e.type == "progress"]
    assert "resuming: T1 already merged" in messages
    assert "T1: writing tests (tests/test_t1.py)" in messages  # the first run's, once
    assert messages.count("T1: writing tests (tests/test_t1.py)") == 1
    assert messages.count("T2: writing tests (tests/test_t2.py)") == 2  # in flight: redone

    again = subprocess.run([*args, "--model", second, "--resume"], capture_output=True,
                           text=True, timeout=60, check=False)
    assert again.returncode == 2
    assert "nothing to resume" in again.stderr


def test_a_resume_first_restores_a_dirty_main_to_head(tmp_path):
    args, out, db, killed_id = start_and_kill(tmp_path)
    t1_test = (out / "tests" / "test_t1.py").read_text()
    # what a kill in the middle of a merge leaves: a half-merged file staged, a tracked file
    # changed, untracked files, git's lock; and an ignored dependency dir that must stay
    (out / "app" / "t2.py").write_text("def t2():\n    return 'half merged'\n")
    git(["add", "app/t2.py"], out)
    (out / "tests" / "test_t1.py").write_text("BROKEN = (\n")
    (out / "stray").mkdir()
    (out / "stray" / "half.py").write_text("X = 1\n")
    (out / ".deps").mkdir(exist_ok=True)
    (out / ".deps" / "installed.txt").write_text("kept\n")
    (out / ".git" / "index.lock").write_text("")
    assert len(status(out)) == 3

    done = subprocess.run([*args, "--model", second_script(tmp_path), "--resume", "--json"],
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["run_id"] == killed_id and result["status"] == "COMPLETE"
    assert result["completed_tasks"] == ["T1", "T2"] and merged_tasks(out) == ["T1", "T2"]
    assert status(out) == []  # clean: nothing of the interrupted merge left
    assert not (out / ".git" / "index.lock").exists() and not (out / "stray").exists()
    assert (out / "tests" / "test_t1.py").read_text() == t1_test
    assert (out / "app" / "t2.py").read_text() == "def t2():\n    return 2\n"  # T2's own
    assert git(["show", "main:app/t2.py"], out).stdout == "def t2():\n    return 2\n"
    assert (out / ".deps" / "installed.txt").read_text() == "kept\n"  # ignored: kept
    with RunStore(db) as store:
        messages = [e.message for _, e in store.events(killed_id) if e.type == "progress"]
    assert "resuming: main's work tree restored to HEAD (3 change(s) of the interrupted run " \
           "dropped)" in messages
