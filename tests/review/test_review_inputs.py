"""Bad review input is one clear line (ReviewInputError) before any run or write; a git
revision names the files it changed."""

from __future__ import annotations

import os

import pytest
from review_helpers import approve, tree_hash

from codeloop.gitutil import commit_all, git, init_repo
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.inputs import changed_files
from codeloop.review.service import (
    ReviewInputError,
    ReviewRequest,
    start_review,
    validate_request,
)


def _refused(workspace, match: str, **kwargs) -> None:
    with pytest.raises(ReviewInputError, match=match) as info:
        validate_request(ReviewRequest(workspace=workspace, **kwargs))
    assert "\n" not in str(info.value)


def test_bad_workspaces_and_empty_requests(tmp_path, workspace):
    _refused(tmp_path / "missing", "does not exist", request="x")
    _refused(workspace / "calc.py", "not a directory", request="x")
    _refused(workspace, "nothing to review", request="   ")


def test_files_outside_missing_or_off_limits_are_refused(tmp_path, workspace):
    (tmp_path / "secret.py").write_text("KEY = 1\n")
    os.symlink(tmp_path / "secret.py", workspace / "link.py")
    (workspace / "codeloop.toml").write_text("")
    before = tree_hash(workspace)
    _refused(workspace, "outside the workspace", files=["../secret.py"])
    _refused(workspace, "outside the workspace", files=[str(tmp_path / "secret.py")])
    _refused(workspace, "no such file", files=["nope.py"])
    _refused(workspace, "symlink", files=["link.py"])
    _refused(workspace, "codeloop's own config", files=["codeloop.toml"])
    _refused(workspace, "home directory", files=["~/.bashrc"])
    assert tree_hash(workspace) == before


def test_files_are_made_workspace_relative(workspace):
    req = validate_request(ReviewRequest(workspace=workspace,
                                         files=[str(workspace / "calc.py"), "./calc.py"]))
    assert req.files == ["calc.py"] and req.workspace == workspace.resolve()


def test_git_revisions(workspace):
    _refused(workspace, "not a git repository", git_rev="HEAD~1")
    init_repo(workspace)
    commit_all(workspace, "first")
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b  # changed\n")
    commit_all(workspace, "second")
    _refused(workspace, "not a revision", git_rev="--output=/tmp/x")
    _refused(workspace, "unknown revision", git_rev="nope")
    assert validate_request(ReviewRequest(workspace=workspace, git_rev="HEAD~1")).git_rev \
        == "HEAD~1"
    git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
         "-m", "empty"], workspace)
    _refused(workspace, "no changed files", git_rev="HEAD")  # a commit that changed nothing
    (workspace / "new.py").write_text("N = 1\n")
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    found, diff = changed_files(workspace, "WORKTREE")
    assert found == ["calc.py", "new.py"] and "+    return a + b" in diff


def test_a_git_revision_is_that_commits_own_change_not_the_work_tree(workspace):
    init_repo(workspace)
    commit_all(workspace, "first")
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b  # changed\n")
    commit_all(workspace, "second")
    (workspace / "calc.py").write_text("def add(a, b):\n    return a * b  # uncommitted\n")
    (workspace / "new.py").write_text("N = 1\n")
    found, diff = changed_files(workspace, "HEAD")  # the second commit: HEAD^ -> HEAD
    assert found == ["calc.py"]
    assert "-    return a - b\n+    return a - b  # changed" in diff
    assert "uncommitted" not in diff and "new.py" not in diff
    found, diff = changed_files(workspace, "HEAD~1")  # the root commit: all it added
    assert found == ["calc.py", "test_calc.py"]
    assert "+    return a - b\n" in diff and "# changed" not in diff


def test_a_git_revision_reviews_its_changed_files_with_the_diff(workspace, store):
    init_repo(workspace)
    commit_all(workspace, "first")
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b - 0\n")
    commit_all(workspace, "second")
    fix = ("calc.py\n<<<<<<< SEARCH\n    return a - b - 0\n=======\n    return a + b\n"
           ">>>>>>> REPLACE\n")
    llm = ScriptedLLM([approve(), fix, approve()])
    out = start_review(ReviewRequest(workspace=workspace, git_rev="HEAD"), llm, store)
    assert out.status == "awaiting_approval", out.message
    assert [d["file_path"] for d in out.pending_diffs] == ["calc.py"]
    assert "-    return a - b\n+    return a - b - 0" in llm.calls[0][-1].content
