"""The hardened git helper: planted hooks and fsmonitor never run; the helpers work."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codeloop import gitutil


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = gitutil.init_repo(tmp_path / "repo")
    (path / "a.txt").write_text("one\n")
    gitutil.commit_all(path, "first")
    return path


def _plant_hook(repo: Path, marker: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)


def test_planted_hook_does_not_run(repo, tmp_path):
    marker = tmp_path / "hook-ran"
    _plant_hook(repo, marker)
    (repo / "a.txt").write_text("two\n")
    assert gitutil.commit_all(repo, "second")
    assert not marker.exists()
    # Control: plain git in the same repository does run it, so the check above means something.
    (repo / "a.txt").write_text("three\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "commit", "-qam", "third"], cwd=repo, env=env, check=True)
    assert marker.exists()


def test_planted_fsmonitor_does_not_run(repo, tmp_path):
    marker = tmp_path / "fsmonitor-ran"
    script = tmp_path / "fsmon.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", str(script)], cwd=repo, check=True)
    gitutil.status(repo)
    gitutil.diff(repo)
    assert not marker.exists()
    subprocess.run(["git", "status"], check=False, cwd=repo, capture_output=True)  # control
    assert marker.exists()


def test_commit_status_diff_branch_merge(repo):
    assert gitutil.current_branch(repo) == "main"
    assert gitutil.status(repo) == []
    assert gitutil.commit_all(repo, "nothing") is None
    (repo / "a.txt").write_text("one\nchanged\n")
    assert gitutil.status(repo) == [" M a.txt"]
    assert "+changed" in gitutil.diff(repo)
    gitutil.create_branch(repo, "feature")
    sha = gitutil.commit_all(repo, "on feature")
    assert sha and len(sha) == 40
    gitutil.checkout(repo, "main")
    (repo / "b.txt").write_text("b\n")
    gitutil.commit_all(repo, "on main")
    result = gitutil.merge(repo, "feature")
    assert result.ok
    assert (repo / "a.txt").read_text() == "one\nchanged\n"
    author = gitutil.git(["log", "-1", "--format=%an <%ae>"], repo).stdout.strip()
    assert author == "codeloop <codeloop@localhost>"


def test_merge_conflict_lists_files(repo):
    gitutil.create_branch(repo, "other")
    (repo / "a.txt").write_text("other\n")
    gitutil.commit_all(repo, "other")
    gitutil.checkout(repo, "main")
    (repo / "a.txt").write_text("mine\n")
    gitutil.commit_all(repo, "mine")
    result = gitutil.merge(repo, "other")
    assert not result.ok and result.conflicts == ["a.txt"]
    gitutil.abort_merge(repo)
    assert gitutil.status(repo) == []


def test_configured_identity_is_kept(repo):
    gitutil.git(["config", "user.name", "Ada"], repo)
    gitutil.git(["config", "user.email", "ada@example.org"], repo)
    (repo / "c.txt").write_text("c")
    gitutil.commit_all(repo, "by ada")
    assert gitutil.git(["log", "-1", "--format=%an"], repo).stdout.strip() == "Ada"


def test_failure_raises_git_error(repo):
    with pytest.raises(gitutil.GitError, match="checkout"):
        gitutil.checkout(repo, "no-such-branch")
