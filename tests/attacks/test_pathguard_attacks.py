"""Attacks on the path guard itself: races on the target, trees too deep to walk, and what the
host would run or leak. Each test failed before its fix."""

from __future__ import annotations

import os
import threading
import time

import pytest

from codeloop.sandbox.pathguard import MAX_DEPTH, PathGuard, PathRefused


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_target_swapped_for_a_hardlink_to_an_outside_file_is_never_read(ws, tmp_path):
    # Finding 1: the guard checked the name (lstat) and then opened it; a file swapped for a
    # hardlink to an outside file in between was returned (8 times in ~73k reads; hundreds a
    # second with this swapper). The check now runs on the opened descriptor.
    outside = tmp_path / "secret.txt"
    outside.write_text("OUTSIDE-SECRET")
    target = ws / "notes.txt"
    target.write_text("inside")
    stop, swaps = threading.Event(), [0]

    def swap() -> None:
        while not stop.is_set():
            link, plain = ws / ".link", ws / ".plain"
            for stale in (link, plain):
                stale.unlink(missing_ok=True)
            os.link(outside, link)
            os.replace(link, target)  # now a hardlink to the outside file
            plain.write_text("inside")
            os.replace(plain, target)  # and back to a plain inside file
            swaps[0] += 1

    guard = PathGuard(ws)
    leaked = reads = refused = 0
    racer = threading.Thread(target=swap, daemon=True)
    racer.start()
    try:
        # Count-bound, not time-bound: on a loaded CI machine 1.5 s held only 86 reads. The
        # deadline is a safety net; the loop ends once the race has really run.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            reads > 300 and swaps[0] > 300 and refused > 0
        ):
            try:
                data = guard.read_bytes("notes.txt")
            except PathRefused:
                refused += 1
                continue
            except FileNotFoundError:
                continue
            reads += 1
            leaked += b"OUTSIDE" in data
    finally:
        stop.set()
        racer.join(timeout=5)
    assert swaps[0] > 100 and reads > 100, "the race did not really run"
    assert refused > 0, "the hardlinked state was never seen: the race proves nothing"
    assert leaked == 0, f"read the outside file through a hardlink {leaked} times"


def test_hardlinked_target_is_refused_for_writes_and_the_outside_file_kept(ws, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    os.link(outside, ws / "linked.txt")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused, match="hardlink"):
        guard.write_text("linked.txt", "overwritten")
    with pytest.raises(PathRefused, match="hardlink"):
        guard.read_text("linked.txt")
    assert outside.read_text() == "keep me"


def test_directories_are_not_created_past_the_depth_and_length_limits(ws):
    # Finding 2: the guard created directories to any depth; every later sandbox run on that
    # workspace then crashed copying or walking the tree.
    guard = PathGuard(ws)
    deep = "/".join(["d"] * (MAX_DEPTH + 8)) + "/x.py"
    with pytest.raises(PathRefused, match="deep"):
        guard.write_text(deep, "x = 1\n")
    assert not (ws / "d").exists(), "no directory of the refused path may be left behind"

    long_path = "/".join(["n" * 200] * 8) + ".py"  # 8 deep only, but 1,600 bytes
    with pytest.raises(PathRefused, match="longer"):
        guard.write_text(long_path, "x = 1\n")
    assert not any(ws.iterdir())

    ok = "/".join(["d"] * (MAX_DEPTH - 1)) + "/x.py"  # at the limit: still fine
    guard.write_text(ok, "x = 1\n")
    assert guard.read_text(ok) == "x = 1\n"


@pytest.mark.parametrize("path", [
    ".venv/lib/python3.11/site-packages/evil.pth",
    ".venv/lib/python3.11/site-packages/anything.py",  # inside a venv at all
    "codeloop.toml",
    "sub/sitecustomize.py",
    "pkg/__pycache__/mod.cpython-311.pyc",
    "vendor/.git/hooks/post-checkout",
])
def test_guard_never_writes_what_the_host_runs(ws, path):
    # Finding 3: the guard refused only .git/; a .pth in the project's venv ran on the next
    # interpreter start and codeloop.toml switched the sandbox off.
    (ws / ".venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    guard = PathGuard(ws)
    with pytest.raises(PathRefused):
        guard.write_text(path, "import os; os.system('touch /tmp/pwned')\n")
    assert not (ws / path).exists()
    assert not (ws / "pkg").exists() and not (ws / "vendor").exists()  # no dirs made for it


def test_guard_does_not_delete_host_files_either(ws):
    (ws / "codeloop.toml").write_text("[sandbox]\nmode = 'strict'\n")
    with pytest.raises(PathRefused):
        PathGuard(ws).delete("codeloop.toml")
    assert (ws / "codeloop.toml").exists()


@pytest.mark.parametrize("path", [".git/config", "libs/sub/.git/config", ".GIT/config"])
def test_reads_inside_git_metadata_are_refused(ws, path):
    # Finding 4: read_file(".git/config") returned remote URLs with tokens.
    config = ws / path
    config.parent.mkdir(parents=True)
    config.write_text('[http]\n\textraheader = "AUTHORIZATION: bearer ghp_TOKEN"\n')
    with pytest.raises(PathRefused, match="git"):
        PathGuard(ws).read_bytes(path)
