"""The attack suite's first part (the rest is tests/attacks/): each test runs hostile code in
the sandbox and asserts that the attack failed and the host is untouched."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

import codeloop
from codeloop.sandbox import Limits, run_command, run_python

pytestmark = pytest.mark.attack

PROJECT_SRC = Path(codeloop.__file__).resolve().parents[1]


def py(source: str, **kwargs):
    kwargs.setdefault("timeout", 10)
    return run_python(source, **kwargs)


def _host_processes_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_cannot_connect_to_a_host_listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted = []
    server.settimeout(3)
    thread = threading.Thread(target=lambda: accepted.append(_accept(server)))
    thread.start()
    result = py(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)")
    thread.join()
    server.close()
    assert result.exit_code != 0
    assert "ConnectionRefusedError" in result.stderr or "OSError" in result.stderr
    assert accepted == [None]


def _accept(server):
    try:
        conn, _ = server.accept()
        conn.close()
        return "connected"
    except OSError:
        return None


def test_cannot_reach_the_internet():
    result = py("import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)")
    assert result.exit_code != 0
    assert "unreachable" in result.stderr.lower() or "OSError" in result.stderr


def test_dns_does_not_resolve():
    result = py("import socket\nprint(socket.gethostbyname('pypi.org'))")
    assert result.exit_code != 0
    assert "gaierror" in result.stderr


def test_root_home_is_not_listable_or_readable():
    result = py("import os\n"
                "for p in ['/root', '/root/.bashrc', '/root/.gitconfig']:\n"
                "    try:\n"
                "        print(p, os.listdir(p) if os.path.isdir(p) else open(p).read())\n"
                "    except OSError as e:\n"
                "        print(p, 'DENIED', type(e).__name__)\n")
    assert result.ok, result.stderr
    for path in ("/root", "/root/.bashrc", "/root/.gitconfig"):
        assert f"{path} DENIED" in result.stdout


def test_etc_shadow_and_passwd_are_absent():
    result = py("import os\nprint([os.path.exists(p) for p in "
                "['/etc/shadow', '/etc/passwd', '/etc/hostname']])")
    assert result.stdout.strip() == "[False, False, False]"


def test_project_source_is_not_importable_or_readable():
    result = py("import os, sys\n"
                f"print(os.path.exists({str(PROJECT_SRC)!r}))\n"
                f"print(os.path.exists({str(PROJECT_SRC.parent / 'pyproject.toml')!r}))\n"
                "try:\n    import codeloop\n    print('IMPORTED')\n"
                "except ImportError:\n    print('no codeloop')\n")
    assert result.stdout.split() == ["False", "False", "no", "codeloop"]


def test_parent_environment_secrets_are_not_visible(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-for-the-attack-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    result = py("import os\nprint(sorted(os.environ.items()))")
    assert "sk-secret" not in result.stdout
    assert "aws-secret-value" not in result.stdout
    assert "OPENAI_API_KEY" not in result.stdout


def test_cannot_write_outside_the_workspace(tmp_path):
    marker = Path("/tmp") / f"codeloop-attack-{os.getpid()}"
    venv_file = Path(sys.prefix) / "attack.txt"
    result = py(f"import os\nresults = []\n"
                f"for p in [{str(marker)!r}, {str(venv_file)!r}, '/usr/attack.txt', "
                f"{str(tmp_path / 'x')!r}]:\n"
                "    try:\n        open(p, 'w').write('pwned')\n        results.append('wrote')\n"
                "    except OSError:\n        results.append('denied')\n"
                "print(results)")
    assert result.ok, result.stderr
    # /tmp inside is a private tmpfs: the write "works" there but never reaches the host.
    assert not marker.exists()
    assert not venv_file.exists()
    assert not Path("/usr/attack.txt").exists()
    assert not (tmp_path / "x").exists()
    assert "denied" in result.stdout


def test_read_only_workspace_cannot_be_changed(tmp_path):
    (tmp_path / "keep.txt").write_text("original")
    result = run_command(["sh", "-c", "echo changed > keep.txt; rm -f keep.txt; touch new"],
                         workspace=tmp_path, mode="ro", timeout=10)
    assert result.exit_code != 0
    assert (tmp_path / "keep.txt").read_text() == "original"
    assert not (tmp_path / "new").exists()


def test_fork_bomb_is_contained_and_the_machine_keeps_working():
    token = "31.4159265"
    started = time.monotonic()
    result = py("import os, time\n"
                "while True:\n"
                "    try:\n"
                f"        if os.fork() == 0:\n            os.execvp('sleep', ['sleep', '{token}'])\n"
                "    except OSError:\n        time.sleep(0.01)\n",
                timeout=3, limits=Limits(processes=32))
    assert time.monotonic() - started < 15
    assert result.limit_hit in ("timeout", "processes")
    assert _host_processes_with(token) == []
    assert run_command(["true"], timeout=10).ok  # the next run still works


def test_shell_fork_bomb_is_bounded_in_time():
    started = time.monotonic()
    result = run_command(["bash", "-c", "b(){ b|b& }; b; sleep 5"], timeout=3,
                         limits=Limits(processes=32))
    assert time.monotonic() - started < 15
    assert result.limit_hit in ("timeout", "processes", None)
    assert run_command(["true"], timeout=10).ok


def test_memory_bomb_hits_the_memory_limit():
    started = time.monotonic()
    result = py("x = bytearray(4 * 1024 ** 3)\nprint('allocated')", limits=Limits(memory_mb=256))
    assert result.limit_hit == "memory"
    assert "allocated" not in result.stdout
    assert time.monotonic() - started < 10


def test_infinite_loop_is_stopped_by_the_wall_clock():
    result = py("while True:\n    pass", timeout=1)
    assert result.limit_hit == "timeout"
    assert 0.9 < result.seconds < 4
    assert not result.ok


def test_cpu_limit_stops_a_busy_loop():
    result = py("while True:\n    pass", timeout=20, limits=Limits(cpu_seconds=1))
    assert result.limit_hit == "cpu"
    assert result.seconds < 10


def test_huge_output_is_capped_and_bounded_in_time():
    started = time.monotonic()
    result = py("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)",
                timeout=20, limits=Limits(output_bytes=10_000, file_size_mb=4))
    assert result.truncated
    assert len(result.stdout) == 10_000
    assert result.limit_hit == "output"
    assert time.monotonic() - started < 15


def test_setsid_grandchild_dies_when_its_parent_exits():
    token = "27.1828182"
    result = py("import subprocess\n"
                f"subprocess.Popen(['setsid', 'sleep', '{token}'], start_new_session=True)\n"
                "print('parent exits')")
    assert result.ok
    time.sleep(0.2)
    assert _host_processes_with(token) == []


def test_setsid_grandchild_dies_on_timeout():
    token = "16.1803398"
    result = py("import subprocess, time\n"
                f"subprocess.Popen(['setsid', 'sleep', '{token}'], start_new_session=True)\n"
                "time.sleep(60)", timeout=1)
    assert result.limit_hit == "timeout"
    time.sleep(0.2)
    assert _host_processes_with(token) == []


def test_host_processes_are_invisible_and_unkillable():
    result = run_command(["sh", "-c", "ls /proc | grep -c '^[0-9]'; kill -9 -1; echo after"],
                         timeout=10)
    visible = int(result.stdout.split()[0])
    assert visible < 10  # only the sandbox's own few processes
    assert os.getppid() > 0  # this test process and its parent are still here


def test_nested_user_namespaces_are_refused():
    result = run_command(["unshare", "--user", "--map-root-user", "id", "-u"], timeout=10)
    assert result.exit_code != 0
    assert result.stdout.strip() != "0"
    assert "unshare failed" in result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch only happens as root")
def test_as_root_the_program_runs_unprivileged():
    result = py("import os\nprint(os.getuid(), os.getgid(), os.getgroups())\n"
                "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])")
    uid, gid, groups, caps = result.stdout.split("\n")[0].split(" ", 2) + [
        result.stdout.split("\n")[1]]
    assert int(uid) != 0 and int(gid) != 0
    assert groups == "[]"
    assert int(caps, 16) == 0


def test_git_hooks_written_in_the_sandbox_never_reach_the_workspace(tmp_path):
    from codeloop import gitutil

    gitutil.init_repo(tmp_path)
    script = ("mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit;"
              " chmod +x .git/hooks/pre-commit; echo code > work.py")
    run_command(["sh", "-c", script], workspace=tmp_path, timeout=10)
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()
    assert (tmp_path / "work.py").read_text() == "code\n"  # ordinary writes do come back


def test_symlink_planted_in_the_workspace_is_refused_by_the_path_guard(tmp_path):
    from codeloop.sandbox.pathguard import PathGuard, PathRefused

    run_command(["ln", "-s", "/etc/hostname", "leak"], workspace=tmp_path, timeout=10)
    if os.path.lexists(tmp_path / "leak"):
        with pytest.raises(PathRefused):
            PathGuard(tmp_path).read_text("leak")
    else:
        assert not (tmp_path / "leak").exists()  # root mode: outward links are not synced
