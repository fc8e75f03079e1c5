"""Path guard attacks: every known escape is refused with a PathRefused that says why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codeloop.sandbox.pathguard import PathGuard, PathRefused


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    return secret


@pytest.mark.parametrize("path, reason", [
    ("../secret.txt", "`..` leads outside"),
    ("src/../../secret.txt", "`..` leads outside"),
    ("~/secret.txt", "`~`"),
    ("$HOME/secret.txt", "`$VAR`"),
    ("${HOME}/x", "`$VAR`"),
    ("src/app.py\x00.txt", "NUL byte"),
    ("/etc/passwd", "absolute path outside"),
    ("", "empty"),
])
def test_textual_escapes_are_refused_for_read_and_write(ws, path, reason):
    guard = PathGuard(ws)
    with pytest.raises(PathRefused) as read_err:
        guard.read_text(path)
    assert reason in read_err.value.reason
    with pytest.raises(PathRefused):
        guard.write_text(path, "pwned")


def test_prefix_trick_ws_evil_is_refused(ws, tmp_path):
    evil = tmp_path / "ws-evil"
    evil.mkdir()
    (evil / "loot.txt").write_text("loot")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused, match="outside the workspace"):
        guard.read_text(str(evil / "loot.txt"))
    with pytest.raises(PathRefused):
        guard.read_text("../ws-evil/loot.txt")


def test_absolute_path_inside_the_workspace_is_allowed(ws):
    assert PathGuard(ws).read_text(str(ws / "src" / "app.py")) == "print('hi')\n"


def test_symlinked_directory_is_refused(ws, outside):
    os.symlink(outside.parent, ws / "linkdir")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused, match="symlinked directory"):
        guard.read_text("linkdir/secret.txt")
    with pytest.raises(PathRefused, match="symlinked directory"):
        guard.write_text("linkdir/new.txt", "pwned")
    with pytest.raises(PathRefused):
        guard.list_dir("linkdir")
    assert not (outside.parent / "new.txt").exists()


def test_symlink_at_the_target_is_refused(ws, outside):
    os.symlink(outside, ws / "link.txt")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused, match="symlink"):
        guard.read_text("link.txt")
    with pytest.raises(PathRefused, match="symlink"):
        guard.write_text("link.txt", "pwned")
    with pytest.raises(PathRefused, match="symlink"):
        guard.delete("link.txt")
    assert outside.read_text() == "top secret"


def test_hardlink_to_an_outside_file_is_refused(ws, outside):
    os.link(outside, ws / "hard.txt")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused, match="hardlink"):
        guard.read_text("hard.txt")
    with pytest.raises(PathRefused, match="hardlink"):
        guard.write_text("hard.txt", "pwned")
    assert outside.read_text() == "top secret"


def test_writes_into_dot_git_are_refused(ws):
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]\n")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused, match=".git"):
        guard.write_text(".git/hooks/pre-commit", "#!/bin/sh\n")
    with pytest.raises(PathRefused, match=".git"):
        guard.write_text("sub/.GIT/config", "x")
    with pytest.raises(PathRefused, match=".git"):
        guard.delete(".git/config")
    assert not (ws / ".git" / "hooks").exists()
    assert (ws / ".git" / "config").read_text() == "[core]\n"  # untouched
    with pytest.raises(PathRefused, match=".git"):  # reads refused too: it can hold tokens
        guard.read_text(".git/config")


def test_write_is_atomic_creates_parents_and_keeps_mode(ws):
    guard = PathGuard(ws)
    os.chmod(ws / "src" / "app.py", 0o755)
    guard.write_text("src/app.py", "print('new')\n")
    guard.write_text("pkg/sub/mod.py", "x = 1\n")
    assert (ws / "src" / "app.py").read_text() == "print('new')\n"
    assert (ws / "src" / "app.py").stat().st_mode & 0o777 == 0o755
    assert (ws / "pkg" / "sub" / "mod.py").read_text() == "x = 1\n"
    assert not [p for p in ws.rglob("*codeloop-tmp*")]


def test_list_and_delete(ws):
    guard = PathGuard(ws)
    guard.write_text("tmp/a.txt", "a")
    assert guard.list_dir(".") == ["src/", "tmp/"]
    assert guard.list_dir("tmp") == ["a.txt"]
    with pytest.raises(OSError):
        guard.delete("tmp")  # not empty
    guard.delete("tmp", recursive=True)
    assert not (ws / "tmp").exists()
    with pytest.raises(PathRefused, match="root"):
        guard.delete(".")
    with pytest.raises(FileNotFoundError):
        guard.read_text("missing.txt")


def test_error_names_the_path_and_reason(ws):
    with pytest.raises(PathRefused) as err:
        PathGuard(ws).read_text("../../etc/passwd")
    assert err.value.path == "../../etc/passwd"
    assert "refused '../../etc/passwd'" in str(err.value)
