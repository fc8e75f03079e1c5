"""Build's scratch space (the task worktrees) against another local user: she pre-creates the
shared `$TMPDIR/codeloop-build` and, while the build runs, swaps what is in it for symlinks
to a directory of her choice; the end-of-build cleanup (root here) must delete nothing of it.
The scratch space is private to the run (fresh, 0700, under the user's own cache dir), and no
cleanup follows a symlink or removes a directory that is not the one it created.

The attacker acts while the build waits before a retry (the injected sleep of the clock)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "build"))

from build_replies import task_script, tasks

from codeloop.build.models import scripted_agents
from codeloop.build.runner import BuildInputError, BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.gitutil import git
from codeloop.store import RunStore

ATTACKER = 4242
WRONG_TEST = "from app.a import a\n\n\ndef test_a():\n    assert a() == 42\n"


def _failing_attempt(n: int) -> list:
    return task_script("tests/test_a.py", WRONG_TEST, "app/a.py", f"def a():\n    return {n}\n",
                       fixes=[("app/a.py", f"def a():\n    return {n + 100}\n")])


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    for name in ("keep1", "keep2"):
        (victim / name).mkdir(parents=True)
        (victim / name / "data.txt").write_text(f"{name} must survive\n")
    return victim


def _victim_intact(victim: Path) -> bool:
    files = [victim / name / "data.txt" for name in ("keep1", "keep2")]
    return all(f.is_file() and f.read_text() == f"{f.parent.name} must survive\n"
               for f in files)


def _worktrees(repo: Path) -> list[Path]:
    out = git(["worktree", "list", "--porcelain"], repo).stdout
    paths = [Path(line.split(" ", 1)[1]) for line in out.splitlines()
             if line.startswith("worktree ")]
    return [p for p in paths if p.resolve() != repo.resolve()]


def _swap_for_link(path: Path, target: Path) -> None:
    """What the attacker does: move `path` aside, put a symlink to `target` in its place."""
    os.rename(path, path.with_name(path.name + ".moved"))
    path.symlink_to(target, target_is_directory=True)


def _build_with_attacker(tmp_path: Path, attack) -> dict:
    """A one-task python-api build whose task fails once and is retried (then fails again):
    `attack(out_dir)` runs while the build waits before the retry."""
    out = tmp_path / "project"
    agents = {"task:A": _failing_attempt(1) + _failing_attempt(2)}
    inputs = prepare(tasks(("A",)), out_dir=out,
                     options=BuildOptions(retries=1, fix_rounds=1, backoff_seconds=1.0))
    runtime = BuildRuntime(llm_for=scripted_agents(agents), sleep=lambda _s: attack(out))
    with RunStore(tmp_path / "runs.sqlite") as store, store.run("build", inputs.record()) as run:
        return execute(inputs, run, store, runtime)


@pytest.fixture
def shared_tmp(tmp_path, monkeypatch):
    """A world-writable sticky temp dir (like /tmp) as the process's temp dir."""
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setenv("TMPDIR", str(shared))
    return shared


@pytest.mark.skipif(os.geteuid() != 0, reason="another uid's directory needs root to make")
def test_a_planted_shared_codeloop_build_dir_is_never_used(tmp_path, shared_tmp):
    victim = _victim(tmp_path)
    planted = shared_tmp / "codeloop-build"
    planted.mkdir(mode=0o777)
    os.chmod(planted, 0o777)
    os.chown(planted, ATTACKER, ATTACKER)
    seen: list[tuple[Path, os.stat_result]] = []

    def attack(out: Path) -> None:
        seen.extend((tree, os.lstat(tree.parent)) for tree in _worktrees(out))
        for entry in list(planted.iterdir()):  # the attacker owns this directory
            if not entry.is_symlink():
                _swap_for_link(entry, victim)

    final = _build_with_attacker(tmp_path, attack)
    assert final["status"] == "FAILED"
    assert _victim_intact(victim)
    assert sorted(os.listdir(victim)) == ["keep1", "keep2"]
    assert seen, "the worktree existed while the build waited"
    for tree, parent in seen:  # every worktree lived in a private dir of ours, not in /tmp
        assert not tree.resolve().is_relative_to(shared_tmp.resolve()), tree
        assert stat.S_IMODE(parent.st_mode) == 0o700 and parent.st_uid == os.geteuid()
        assert not tree.parent.exists(), "the run's scratch dir is removed at the end"


def test_a_run_scratch_dir_swapped_for_a_symlink_is_not_followed(tmp_path):
    victim = _victim(tmp_path)

    def attack(out: Path) -> None:
        for tree in _worktrees(out):
            if not tree.parent.is_symlink():
                _swap_for_link(tree.parent, victim)

    _build_with_attacker(tmp_path, attack)
    assert _victim_intact(victim)
    assert sorted(os.listdir(victim)) == ["keep1", "keep2"]


def test_a_worktree_swapped_for_a_symlink_is_not_followed(tmp_path):
    victim = _victim(tmp_path)

    def attack(out: Path) -> None:
        for tree in _worktrees(out):
            if tree.is_dir() and not tree.is_symlink():
                _swap_for_link(tree, victim)

    _build_with_attacker(tmp_path, attack)
    assert _victim_intact(victim)
    assert sorted(os.listdir(victim)) == ["keep1", "keep2"]


@pytest.mark.skipif(os.geteuid() != 0, reason="another uid's directory needs root to make")
def test_a_scratch_root_that_is_not_ours_is_refused_before_anything_is_written(tmp_path,
                                                                               monkeypatch):
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("CODELOOP_SCRATCH_DIR", str(scratch))
    (scratch / "build").mkdir(parents=True)
    os.chmod(scratch / "build", 0o777)
    os.chown(scratch / "build", ATTACKER, ATTACKER)
    out = tmp_path / "project"
    with pytest.raises(BuildInputError) as caught:
        prepare(tasks(("A",)), out_dir=out)
    message = str(caught.value)
    assert "\n" not in message and str(scratch / "build") in message and "4242" in message
    assert not out.exists() and os.listdir(scratch / "build") == []


def test_a_loose_scratch_root_of_ours_is_refused(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("CODELOOP_SCRATCH_DIR", str(scratch))
    (scratch / "build").mkdir(parents=True)
    os.chmod(scratch / "build", 0o777)
    with pytest.raises(BuildInputError) as caught:
        prepare(tasks(("A",)), out_dir=tmp_path / "project")
    assert "writable by others" in str(caught.value)


def test_the_scratch_of_a_finished_build_is_gone_and_git_forgot_its_worktrees(tmp_path,
                                                                            monkeypatch):
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("CODELOOP_SCRATCH_DIR", str(scratch))
    final = _build_with_attacker(tmp_path, lambda out: None)
    assert final["status"] == "FAILED"
    assert os.listdir(scratch / "build") == []
    assert stat.S_IMODE(os.lstat(scratch / "build").st_mode) == 0o700
    assert _worktrees(tmp_path / "project") == []
    proc = subprocess.run(["git", "branch", "--list", "task/A"], cwd=tmp_path / "project",
                          capture_output=True, text=True, check=True)
    assert "task/A" in proc.stdout  # a failed task's branch is kept for a look
