"""Attacks on the copy-back: what a sandboxed program writes into its copy of the workspace
must not reach the user's tree as git metadata, code the host runs implicitly, links that
leave the workspace, unbounded trees, or a half-applied change."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from codeloop.sandbox import Limits, SandboxError, run_command

PY = sys.executable


def run_py(ws: Path, code: str, **kw):
    return run_command([PY, "-c", code], workspace=ws, mode="rw", timeout=20, **kw)


def snapshot_of(root: Path) -> dict[str, bytes | str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            out[rel] = (os.readlink(path) if path.is_symlink() else
                        path.read_bytes() if path.is_file() else "dir")
    return out


def test_git_metadata_at_any_depth_is_not_copied_back_and_is_reported(tmp_path):
    (tmp_path / "lib").mkdir()
    code = (
        "import os\n"
        "os.makedirs('payload/hooks'); open('payload/hooks/post-checkout','w').write('x')\n"
        "open('lib/.git','w').write('gitdir: ../payload\\n')\n"
        "os.makedirs('sub/.git/hooks'); open('sub/.git/hooks/pre-commit','w').write('x')\n"
        "os.makedirs('.git/hooks'); open('.git/hooks/pre-commit','w').write('x')\n"
        "open('work.py','w').write('ok')\n")
    result = run_py(tmp_path, code)
    assert result.ok, result.stderr
    assert (tmp_path / "work.py").read_text() == "ok"
    for planted in ("lib/.git", "sub/.git", ".git"):
        assert not os.path.lexists(tmp_path / planted), planted
    refused = "\n".join(result.refused)
    assert "lib/.git:" in refused and "sub/.git:" in refused and ".git:" in refused
    assert "not copied back" in result.summary()


def test_deleting_or_replacing_a_submodule_git_is_not_applied(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    (tmp_path / "lib" / "code.py").write_text("x")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / ".git").mkdir()
    (tmp_path / "vendor" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    code = ("import shutil\nshutil.rmtree('lib')\nshutil.rmtree('vendor')\n"
            "open('vendor','w').write('now a file')\n")
    result = run_py(tmp_path, code)
    assert result.ok, result.stderr
    assert (tmp_path / "lib" / ".git").read_text() == "gitdir: ../.git/modules/lib\n"
    assert not (tmp_path / "lib" / "code.py").exists()  # the rest of the deletion applies
    assert (tmp_path / "vendor" / ".git" / "HEAD").exists()
    refused = "\n".join(result.refused)
    assert "lib/.git: not deleted" in refused and "vendor:" in refused


def test_forged_pyc_for_an_untouched_source_is_not_copied_back(tmp_path):
    (tmp_path / "mod.py").write_text("VALUE = 'honest'\n")
    code = (
        "import importlib._bootstrap_external as be, importlib.util, os\n"
        "st = os.stat('mod.py')\n"
        "forged = compile(\"VALUE = 'forged'\\n\", 'mod.py', 'exec')\n"
        "data = be._code_to_timestamp_pyc(forged, st.st_mtime, st.st_size)\n"
        "os.makedirs('__pycache__', exist_ok=True)\n"
        "open(importlib.util.cache_from_source('mod.py'), 'wb').write(data)\n"
        "open('x.pth','w').write('import os\\n')\n"
        "open('sitecustomize.py','w').write('import os\\n')\n"
        "open('codeloop.toml','w').write('unsafe_no_sandbox = true\\n')\n"
        "os.makedirs('venv/lib'); open('venv/pyvenv.cfg','w').write('home=/usr\\n')\n"
        "open('venv/lib/evil.py','w').write('x')\n")
    result = run_py(tmp_path, code)
    assert result.ok, result.stderr
    assert not (tmp_path / "__pycache__").exists()
    for name in ("x.pth", "sitecustomize.py", "codeloop.toml", "venv/pyvenv.cfg",
                 "venv/lib/evil.py"):
        assert not (tmp_path / name).exists(), name
    probe = subprocess.run([PY, "-c", "import mod; print(mod.VALUE)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "honest"
    assert any(r.startswith("__pycache__") for r in result.refused)


def test_links_are_judged_by_where_they_resolve(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a")
    code = ("import os\nos.symlink('.', 'd')\nos.symlink('d/..', 'up')\n"
            "os.symlink('d/d/../secret.txt', 'sneaky')\nos.symlink('/etc', 'abs')\n"
            "os.symlink('src/a.py', 'ok')\n")
    result = run_py(tmp_path, code)
    assert result.ok, result.stderr
    for bad in ("up", "sneaky", "abs"):
        assert not os.path.lexists(tmp_path / bad), bad
        assert any(r.startswith(f"{bad}:") for r in result.refused), bad
    assert os.readlink(tmp_path / "ok") == "src/a.py"
    assert os.readlink(tmp_path / "d") == "."  # resolves to the workspace itself: inside


@pytest.mark.parametrize("limits, code, cap", [
    (Limits(copyback_files=50), "for i in range(60): open(f'f{i}','w').close()",
     "copyback_files"),
    (Limits(copyback_mb=1), "open('big','wb').write(b'x' * 2_000_000)", "copyback_mb"),
    (Limits(), ("import os\nfor i in range(40):\n os.mkdir('d'); os.chdir('d')\n"
                "open('leaf','w').close()"), "copyback_depth"),
    (Limits(copyback_path_bytes=100), "import os\nos.makedirs('a' * 60 + '/' + 'b' * 60)",
     "copyback_path_bytes"),
])
def test_over_a_copy_back_cap_nothing_is_copied_and_the_error_names_it(tmp_path, limits, code,
                                                                      cap):
    (tmp_path / "keep.txt").write_text("original")
    (tmp_path / "gone.txt").write_text("still here")
    before = snapshot_of(tmp_path)
    full = f"import os\nopen('keep.txt','w').write('changed')\nos.remove('gone.txt')\n{code}\n"
    with pytest.raises(SandboxError, match=cap):
        run_py(tmp_path, full, limits=limits)
    assert snapshot_of(tmp_path) == before


def _our_run_dirs() -> list[Path]:
    mine = []
    for path in Path(tempfile.gettempdir()).glob("codeloop-sbx-*"):
        try:
            if (path / "owner").read_text().split()[0] == str(os.getpid()):
                mine.append(path)
        except (OSError, IndexError):
            continue
    return mine


def test_a_very_deep_tree_fails_cleanly_and_leaves_no_temp_dir(tmp_path):
    (tmp_path / "keep.txt").write_text("original")
    code = ("import os\nopen('keep.txt','w').write('changed')\n"
            "for i in range(2100):\n os.mkdir('d'); os.chdir('d')\n")
    with pytest.raises(SandboxError, match="copyback_depth"):
        run_py(tmp_path, code)
    assert (tmp_path / "keep.txt").read_text() == "original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    assert _our_run_dirs() == []


def test_long_names_and_planted_temp_names_copy_back_whole(tmp_path):
    (tmp_path / "a.txt").write_text("old")
    (tmp_path / "b.txt").write_text("delete me")
    long_name = "n" * 250
    code = (f"import os\nopen('{long_name}','w').write('long')\n"
            "open('.a.txt.codeloop-tmp','w').write('planted')\n"
            "os.mkdir('.c.txt.codeloop-tmp')\n"
            "open('a.txt','w').write('new')\nopen('c.txt','w').write('c')\n"
            "os.remove('b.txt')\n")
    result = run_py(tmp_path, code)
    assert result.ok, result.stderr
    assert (tmp_path / long_name).read_text() == "long"
    assert (tmp_path / "a.txt").read_text() == "new"
    assert (tmp_path / "c.txt").read_text() == "c"
    assert not (tmp_path / "b.txt").exists()
    assert not any(p.name.startswith(".codeloop-") for p in tmp_path.iterdir())


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a second filesystem needs root")
def test_a_failure_halfway_rolls_back_what_was_applied(tmp_path):
    (tmp_path / "keep.txt").write_text("original")
    (tmp_path / "old.txt").write_text("old")
    (tmp_path / "zmnt").mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(tmp_path / "zmnt")],
                   check=True)
    try:
        before = snapshot_of(tmp_path)
        code = ("import os\nos.makedirs('a/b')\nopen('a/b/new.txt','w').write('n')\n"
                "open('keep.txt','w').write('changed')\nos.remove('old.txt')\n"
                "open('zmnt/x','w').write('crosses a mount: rename fails')\n")
        with pytest.raises(SandboxError, match="workspace is unchanged"):
            run_py(tmp_path, code)
        assert snapshot_of(tmp_path) == before
    finally:
        subprocess.run(["umount", str(tmp_path / "zmnt")], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="the size-capped tmpfs needs root")
@pytest.mark.parametrize("given", [False, True])
def test_sandbox_storage_is_size_capped(tmp_path, given):
    code = ("import os\nn = 0\ntry:\n for i in range(40):\n"
            "  open(f'f{i}','wb').write(b'x' * 4_000_000); n += 1\n"
            "except OSError as e:\n print('stopped', e.errno)\nprint('wrote', n)\n")
    limits = Limits(copyback_mb=8, file_size_mb=4)
    result = run_command([PY, "-c", code], workspace=tmp_path if given else None,
                         mode="cow", limits=limits, timeout=20)
    assert "stopped 28" in result.stdout  # ENOSPC long before 160 MB
    assert int(result.stdout.split("wrote ")[1]) < 12


def test_git_credentials_are_not_visible_inside(tmp_path):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "PATH": os.environ["PATH"]}

    def git(*args, cwd=tmp_path):
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    git("init", "-q")
    git("config", "remote.origin.url", "https://alice:ghp_SECRET1@example.com/r.git")
    git("config", "http.extraheader", "Authorization: Bearer SECRET2")
    git("config", "user.name", "Alice")
    (tmp_path / ".git" / "modules" / "lib").mkdir(parents=True)
    (tmp_path / ".git" / "modules" / "lib" / "config").write_text(
        '[remote "origin"]\n\turl = https://x:SECRET3@example.com/lib.git\n')
    (tmp_path / ".git" / "credentials").write_text("https://bob:SECRET4@example.com\n")
    host_config = (tmp_path / ".git" / "config").read_text()
    result = run_command(["sh", "-c", ("cat .git/config .git/modules/lib/config; "
                                       "ls .git; cat .git/credentials 2>/dev/null; true")],
                         workspace=tmp_path, mode="rw", timeout=20)
    assert result.ok, result.stderr
    assert "SECRET" not in result.stdout
    assert "https://example.com/r.git" in result.stdout and "Alice" in result.stdout
    assert (tmp_path / ".git" / "config").read_text() == host_config  # home copy untouched
    assert (tmp_path / ".git" / "credentials").exists()
    assert result.refused == []


def test_a_killed_runs_temp_dir_is_swept_by_the_next_start(tmp_path):
    child = subprocess.Popen(
        [PY, "-c", ("from codeloop.sandbox import run_command\n"
                    "run_command(['sleep', '30'], timeout=60)\n")])

    deadline, found = time.monotonic() + 60, None
    while found is None and time.monotonic() < deadline:
        for path in Path(tempfile.gettempdir()).glob("codeloop-sbx-*"):
            try:
                if (path / "owner").read_text().split()[0] == str(child.pid):
                    found = path
            except (OSError, IndexError):
                continue
        time.sleep(0.05)
    child.kill()
    child.wait()
    assert found is not None, "the child's run dir never appeared"
    assert found.exists()
    run_command(["true"], timeout=10)  # the next start sweeps it
    assert not found.exists()
    mounts = Path("/proc/self/mountinfo").read_text()
    assert str(found) not in mounts


def test_mountinfo_does_not_show_where_the_workspace_lives_on_the_host(tmp_path):
    """Issue 16, item 8: /proc/self/mountinfo showed host paths. The workspace is a staged copy
    (a tmpfs as root), so the user's project path is not among the mounts; what is left are
    the interpreter's own directories, which the sandbox needs at their paths (shebangs)."""
    project = tmp_path / "secret-project-name"
    project.mkdir()
    (project / "a.py").write_text("a = 1\n")
    for mode in ("rw", "cow"):
        result = run_command(["cat", "/proc/self/mountinfo"], workspace=project, mode=mode)
        assert result.exit_code == 0, result.stderr
        assert "secret-project-name" not in result.stdout
        assert str(tmp_path) not in result.stdout
