"""A run without the sandbox (unsafe_no_sandbox) sees the host's /tmp, shared with every local
user. Settings meant for the sandbox's private /tmp (a stack's `GOCACHE: /tmp/go-cache`, and
TMPDIR itself) would there name fixed paths another user can make first and fill (a planted
build cache runs as us). So each value that is /tmp or lies below it is moved into the run's
own private directory, removed with the run."""

from __future__ import annotations

from pathlib import Path

SHARED_TMP = "/tmp"


def private_tmp_env(env: dict[str, str], run_dir: Path) -> dict[str, str]:
    """env with every value `/tmp` or `/tmp/...` moved under `run_dir/tmp` (made 0700)."""
    private = run_dir / "tmp"
    private.mkdir(mode=0o700, exist_ok=True)
    moved = {}
    for key, value in env.items():
        if value == SHARED_TMP or value.startswith(SHARED_TMP + "/"):
            value = str(private) + value[len(SHARED_TMP):]
        moved[key] = value
    return moved
