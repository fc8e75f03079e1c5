"""Host-side git in a workspace the model wrote: no filter, diff or merge driver a
`.gitattributes` names, and nothing from a submodule, a `gitdir:` file or an embedded
repository ever runs; .gitignore hides nothing from the change summary, /undo or the git tools.

Each attack has a control: plain git on the same tree does run the marker command, so a
missing marker means codeloop stopped it, not that the setup was wrong.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codeloop import gitutil
from codeloop.agent import snapshot_walk
from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.agent.snapshots import Snapshots, init_repo
from codeloop.store import RunStore
from codeloop.tools import Workspace
from codeloop.tools.git_tools import git_diff, git_status

_REPLIES = importlib.util.spec_from_file_location(
    "agent_replies", Path(__file__).parents[1] / "agent" / "agent_replies.py")
replies = sys.modules.setdefault("agent_replies", importlib.util.module_from_spec(_REPLIES))
if not hasattr(replies, "scripted"):  # the scripted-model helpers of tests/agent
    _REPLIES.loader.exec_module(replies)

PLAIN_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
             "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def plain_git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """git as a user would run it (the attack's setup and its control)."""
    return subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd,
                          env=PLAIN_ENV, check=check, capture_output=True, text=True)


def marker_command(marker: Path) -> str:
    return f"sh -c 'id > {shlex.quote(str(marker))}; cat'"


def every_host_git_call(ws_root: Path) -> None:
    """What codeloop runs on the host: gitutil, the agent's git tools, snapshots."""
    workspace = Workspace.at(ws_root)
    gitutil.status(ws_root)
    gitutil.diff(ws_root)
    gitutil.diff(ws_root, "HEAD")
    git_status.func(workspace)
    git_diff.func(workspace)
    git_diff.func(workspace, "lib")
    Snapshots(workspace).take()
    if gitutil.commit_all(ws_root, "after the model's turn"):
        gitutil.diff(ws_root, "HEAD~1")
    gitutil.status(ws_root)


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    up = tmp_path / "upstream"
    plain_git(tmp_path, "init", "-q", "-b", "main", str(up))
    (up / "f.txt").write_text("upstream\n")
    plain_git(up, "add", ".")
    plain_git(up, "commit", "-qm", "upstream")
    return up


@pytest.fixture
def workspace_with_submodule(tmp_path: Path, upstream: Path) -> Path:
    ws = tmp_path / "ws"
    plain_git(tmp_path, "init", "-q", "-b", "main", str(ws))
    (ws / "a.txt").write_text("a\n")
    plain_git(ws, "submodule", "add", "-q", str(upstream), "lib")
    plain_git(ws, "add", ".")
    plain_git(ws, "commit", "-qm", "with a submodule")
    return ws


def _assert_attack_stopped(ws: Path, marker: Path, control: list[str]) -> None:
    twin = ws.with_name(ws.name + "-control")
    shutil.copytree(ws, twin, symlinks=True)
    marker.unlink(missing_ok=True)
    plain_git(twin, *control, check=False)
    assert marker.exists(), "control: plain git runs the planted command on this tree"
    marker.unlink()
    every_host_git_call(ws)
    assert not marker.exists(), "a command named by the workspace ran on the host"


def test_submodule_replaced_by_a_hostile_repository(workspace_with_submodule, tmp_path):
    ws, marker = workspace_with_submodule, tmp_path / "marker"
    lib = ws / "lib"
    subprocess.run(["rm", "-rf", str(lib / ".git")], check=True)
    plain_git(tmp_path, "init", "-q", str(lib))
    plain_git(lib, "add", "f.txt")
    plain_git(lib, "commit", "-qm", "hostile")
    plain_git(lib, "config", "filter.x.clean", marker_command(marker))
    (lib / ".gitattributes").write_text("* filter=x\n")
    (lib / "f.txt").write_text("upstreaM\n")  # same size: git must hash it, through the filter
    _assert_attack_stopped(ws, marker, ["status"])


def test_submodule_git_file_pointing_at_a_payload(workspace_with_submodule, tmp_path):
    ws, marker = workspace_with_submodule, tmp_path / "marker"
    lib, payload = ws / "lib", ws / "payload"
    subprocess.run(["rm", "-rf", str(lib / ".git")], check=True)
    plain_git(ws, "init", "-q", "--bare", str(payload))
    plain_git(ws, "--git-dir=payload", "config", "core.bare", "false")
    plain_git(ws, "--git-dir=payload", "config", "core.worktree", "../lib")
    (lib / ".gitattributes").write_text("* filter=x\n")
    plain_git(ws, "--git-dir=payload", "--work-tree=lib", "add", "-A")
    plain_git(ws, "--git-dir=payload", "--work-tree=lib", "commit", "-qm", "payload")
    plain_git(ws, "--git-dir=payload", "config", "filter.x.clean", marker_command(marker))
    (lib / ".git").write_text("gitdir: ../payload\n")
    (lib / "f.txt").write_text("changed by the model\n")
    _assert_attack_stopped(ws, marker, ["status"])


def test_nested_repository_after_a_commit(tmp_path):
    ws, marker = tmp_path / "ws", tmp_path / "marker"
    plain_git(tmp_path, "init", "-q", "-b", "main", str(ws))
    (ws / "a.txt").write_text("a\n")
    plain_git(ws, "add", ".")
    plain_git(ws, "commit", "-qm", "first")
    sub = ws / "sub"
    plain_git(ws, "init", "-q", str(sub))
    (sub / "s.txt").write_text("s\n")
    plain_git(sub, "add", ".")
    plain_git(sub, "commit", "-qm", "nested")
    plain_git(sub, "config", "filter.x.clean", marker_command(marker))
    (sub / ".gitattributes").write_text("* filter=x\n")
    gitutil.commit_all(ws, "the model's turn")
    assert "sub" not in gitutil.git(["ls-files"], ws).stdout.split()  # codeloop never embeds
    plain_git(ws, "add", "sub")  # but a user or a tool might: sub becomes a gitlink
    plain_git(ws, "commit", "-qm", "embedded")
    (sub / "s.txt").write_text("t\n")  # same size: git must hash it, through the filter
    _assert_attack_stopped(ws, marker, ["status"])


def test_top_level_gitattributes_names_a_configured_filter(tmp_path):
    ws, marker = tmp_path / "ws", tmp_path / "marker"
    plain_git(tmp_path, "init", "-q", "-b", "main", str(ws))
    (ws / "a.txt").write_text("a\n")
    (ws / "lib").mkdir()
    (ws / "lib" / "b.txt").write_text("b\n")
    plain_git(ws, "add", ".")
    plain_git(ws, "commit", "-qm", "first")
    # The user's (or a tool's) config defines drivers; the model's .gitattributes names them.
    plain_git(ws, "config", "filter.x.clean", marker_command(marker))
    plain_git(ws, "config", "filter.x.required", "true")
    plain_git(ws, "config", "diff.y.textconv", marker_command(marker))
    plain_git(ws, "config", "diff.y.command", marker_command(marker))
    (ws / ".gitattributes").write_text("*.txt filter=x\n*.py diff=y\n")
    (ws / "a.txt").write_text("a\nchanged\n")
    (ws / "c.py").write_text("x = 1\n")
    _assert_attack_stopped(ws, marker, ["diff"])
    # The drivers were skipped, not the content: the change is there in full.
    assert "+changed" in gitutil.diff(ws, "HEAD~1")
    assert not marker.exists()


def test_merge_driver_named_in_gitattributes_does_not_run(tmp_path):
    ws, marker = gitutil.init_repo(tmp_path / "ws"), tmp_path / "marker"
    (ws / "a.txt").write_text("base\n")
    (ws / ".gitattributes").write_text("* merge=m\n")
    gitutil.commit_all(ws, "base")
    plain_git(ws, "config", "merge.m.driver", f"sh -c 'id > {shlex.quote(str(marker))}'")
    gitutil.create_branch(ws, "side")
    (ws / "a.txt").write_text("side\n")
    gitutil.commit_all(ws, "side")
    gitutil.checkout(ws, "main")
    (ws / "a.txt").write_text("main\n")
    gitutil.commit_all(ws, "main")
    try:
        gitutil.merge(ws, "side")
    except gitutil.GitError:
        pass  # failing closed is fine; running the driver is not
    assert not marker.exists()


def test_snapshot_skips_nested_git_entries_without_following_them(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("a = 1\n")
    init_repo(root)
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text(f"gitdir: {outside}\n")
    (root / "sub" / "m.py").write_text("m = 1\n")
    (root / "nested" / ".git").mkdir(parents=True)
    (root / "nested" / ".git" / "config").write_text("[core]\n")
    snapshots = Snapshots(Workspace.at(root))
    tree = snapshots.take()
    listed = gitutil.git(["ls-tree", "-r", "--name-only", tree], root).stdout.split()
    assert listed == ["a.py", "sub/m.py"]


# ---------------------------------------------------------------- .gitignore hides nothing

def _session(root: Path, store: RunStore, llm, context_first: bool = False) -> AgentSession:
    workspace = Workspace.at(root)
    return AgentSession(llm, agent_spec("single", workspace), checkpointer=store.checkpointer(),
                        snapshots=Snapshots(workspace), thread="t", context_first=context_first)


def test_gitignore_star_written_first_hides_nothing(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.py").write_text("x = 1\n")
    init_repo(root)
    llm = replies.scripted(
        replies.act("write_file", path=".gitignore", content="*", start_line=None,
                    end_line=None),
        replies.act("write_file", path="evil.py", content="print('hidden')", start_line=None,
                    end_line=None),
        replies.finish("done"),
    )
    with RunStore(tmp_path / "store.sqlite") as store:
        session = _session(root, store, llm)
        turn = session.ask("make changes")
        assert {c.path for c in turn.changes} == {".gitignore", "evil.py"}
        workspace = Workspace.at(root)
        assert "evil.py" in git_status.func(workspace)
        assert "evil.py" in git_diff.func(workspace)
        assert "Reverted turn 1" in session.undo()
    assert not (root / "evil.py").exists() and not (root / ".gitignore").exists()


def test_gitignore_star_in_a_context_first_reply_hides_nothing(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.py").write_text("x = 1\n")
    init_repo(root)
    reply = ("FILE: .gitignore\n```\n*\n```\n\nFILE: evil.py\n```python\nprint('hidden')\n```\n")
    with RunStore(tmp_path / "store.sqlite") as store:
        session = _session(root, store, replies.scripted(reply), context_first=True)
        turn = session.ask("make changes")
        assert turn.status == "finished"
        assert {c.path for c in turn.changes} == {".gitignore", "evil.py"}
        assert "Reverted turn 1" in session.undo()
    assert not (root / "evil.py").exists() and not (root / ".gitignore").exists()


def test_git_tools_leave_caches_and_venvs_unnamed(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".gitignore").write_text("__pycache__/\nenv/\n")
    init_repo(root)
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
    (root / "env").mkdir()
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    assert git_status.func(Workspace.at(root)) == "Nothing changed: the working tree is clean."


def test_snapshot_caps_say_what_they_left_out(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot_walk, "MAX_FILE_BYTES", 1000)
    root = tmp_path / "ws"
    root.mkdir()
    init_repo(root)
    (root / "big.bin").write_bytes(b"x" * 2000)
    (root / "small.py").write_text("s = 1\n")
    snapshots = Snapshots(Workspace.at(root))
    tree = snapshots.take()
    assert gitutil.git(["ls-tree", "--name-only", tree], root).stdout.split() == ["small.py"]
    assert "big.bin" in snapshots.omitted and "over" in snapshots.omitted
