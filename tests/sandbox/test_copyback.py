"""The copy-back's parts on real directories: staging, the plan/apply gate, link resolution,
bounded removal and the crash sweep of per-run temp dirs."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from codeloop.sandbox import Limits, SandboxResult
from codeloop.sandbox.copyback import CopyBackError, sync_back
from codeloop.sandbox.links import link_refusal
from codeloop.sandbox.removal import remove_tree
from codeloop.sandbox.staging import stage_copy
from codeloop.sandbox.tempdirs import OWNER_FILE, PREFIX, private_run_dir, sweep_stale


def staged(tmp_path: Path, files: dict[str, str]):
    ws, copy = tmp_path / "ws", tmp_path / "copy"
    ws.mkdir()
    copy.mkdir()
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    return ws, copy, stage_copy(ws, copy, None)


def test_an_unchanged_copy_syncs_nothing(tmp_path):
    ws, copy, snap = staged(tmp_path, {"a.py": "a", "pkg/b.py": "b"})
    report = sync_back(copy, ws, snap)
    assert (report.written, report.deleted, report.refused) == ([], [], [])


def test_changes_new_files_and_deletions_are_applied(tmp_path):
    ws, copy, snap = staged(tmp_path, {"a.py": "a", "pkg/b.py": "b", "gone.py": "g"})
    (copy / "a.py").write_text("changed")
    (copy / "new" / "deep").mkdir(parents=True)
    (copy / "new" / "deep" / "c.py").write_text("c")
    os.remove(copy / "gone.py")
    report = sync_back(copy, ws, snap)
    assert (ws / "a.py").read_text() == "changed"
    assert (ws / "new" / "deep" / "c.py").read_text() == "c"
    assert not (ws / "gone.py").exists()
    assert report.deleted == ["gone.py"]
    assert not any(p.name.startswith(".codeloop-") for p in ws.iterdir())


def test_past_the_deadline_nothing_is_applied(tmp_path):
    ws, copy, snap = staged(tmp_path, {"a.py": "a"})
    (copy / "a.py").write_text("changed")
    with pytest.raises(CopyBackError, match="copyback_seconds"):
        sync_back(copy, ws, snap, Limits(), deadline=time.monotonic() - 1)
    assert (ws / "a.py").read_text() == "a"


def test_deleting_inside_a_virtualenv_is_refused_and_reported(tmp_path):
    ws, copy, snap = staged(tmp_path, {"env/pyvenv.cfg": "home=/usr", "env/lib/x.py": "x"})
    remove_tree(copy / "env")
    report = sync_back(copy, ws, snap)
    assert (ws / "env" / "lib" / "x.py").exists()
    assert any("virtual environment" in r for r in report.refused)


def test_refused_changes_are_shown_in_the_summary():
    result = SandboxResult(exit_code=0, stdout="", stderr="", truncated=False, seconds=0.1,
                           limit_hit=None, sandboxed=True, refused=["x.pth: .pth files run"])
    assert "1 change(s) not copied back (x.pth: .pth files run)" in result.summary()


def test_limits_reject_a_zero_copy_back_cap():
    with pytest.raises(ValueError, match="copyback_files"):
        Limits(copyback_files=0)


@pytest.mark.parametrize("links, name, refused", [
    ({"d": "."}, "d", False),
    ({"d": ".", "up": "d/.."}, "up", True),
    ({"d": ".", "s": "d/d/../secret.txt"}, "s", True),
    ({"a": "/etc"}, "a", True),
    ({"loop": "loop"}, "loop", True),
    ({"g": "sub/.git/config"}, "g", True),
    ({"ok": "sub/x/../y"}, "ok", False),
])
def test_links_are_resolved_in_the_tree(tmp_path, links, name, refused):
    (tmp_path / "sub").mkdir()
    for link, target in links.items():
        os.symlink(target, tmp_path / link)
    assert (link_refusal(str(tmp_path), name) is not None) is refused


def test_remove_tree_handles_deep_and_unreadable_trees(tmp_path):
    # In RAM where there is a tmpfs: on a busy disk each rmdir can cost milliseconds.
    ram = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(dir=ram)) if os.access(ram, os.W_OK) else tmp_path
    top = base / "top"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    for _ in range(1100):  # past the recursion limit and, at 6 bytes a level, PATH_MAX
        os.mkdir("level", dir_fd=fd)
        child = os.open("level", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.symlink("/etc", "link", dir_fd=fd)
    os.close(fd)
    os.chmod(top, 0)
    remove_tree(top)
    assert not top.exists()
    assert Path("/etc").is_dir()
    remove_tree(base)


def test_sweep_removes_dead_owners_dirs_only(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale, live = tmp_path / f"{PREFIX}stale", tmp_path / f"{PREFIX}live"
    for path, owner in ((stale, f"{dead} 1"), (live, None)):
        path.mkdir()
        (path / "workspace").mkdir()
        if owner:
            (path / OWNER_FILE).write_text(owner)
    with private_run_dir(parent=tmp_path) as mine:  # writes our pid; sweeps first
        (live / OWNER_FILE).write_text((mine / OWNER_FILE).read_text())
        assert not stale.exists()
        assert sweep_stale(tmp_path) == []
        assert live.exists() and mine.exists()
    assert not mine.exists()


def test_a_concurrent_sweep_never_removes_a_run_being_created(tmp_path):
    import threading

    stop = threading.Event()

    def sweep_until_stopped():
        while not stop.is_set():
            sweep_stale(tmp_path)

    sweeper = threading.Thread(target=sweep_until_stopped)
    sweeper.start()
    try:
        for _ in range(400):
            with private_run_dir(parent=tmp_path) as run_dir:
                (run_dir / "stdout").write_text("still here")  # fails if swept meanwhile
                assert (run_dir / OWNER_FILE).read_text().strip()
    finally:
        stop.set()
        sweeper.join()
