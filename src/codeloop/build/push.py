"""The remote the seed's Gitea played: after the scaffold, every merge and the integration,
main is pushed to `--push-to`, a local bare repository (created when missing) or an https
URL. ssh remotes are not supported: the hardened git (git_hardening) runs no ssh program.

A failed push does not stop the build (the work is on the local main): it is reported.
"""

from __future__ import annotations

from pathlib import Path

from codeloop.build.repo import MAIN
from codeloop.events import Error, EventBus
from codeloop.gitutil import git


class PushTargetError(ValueError):
    """--push-to names nothing codeloop can push to; the message is one line."""


def check_target(target: str, out_dir: Path) -> str:
    """The push target as it will be used: an https URL, or a local bare repository's
    absolute path (not inside the project)."""
    if "://" in target:
        if not target.startswith("https://"):
            raise PushTargetError(f"--push-to {target!r}: only https:// URLs or a local path "
                                  "(ssh is not run by codeloop's hardened git)")
        return target
    if ":" in target.split("/", 1)[0]:
        raise PushTargetError(f"--push-to {target!r}: ssh remotes are not supported; use an "
                              "https:// URL or a local path")
    path = Path(target).expanduser().resolve()
    if path == out_dir or path.is_relative_to(out_dir) or out_dir.is_relative_to(path):
        raise PushTargetError(f"--push-to {path}: must be outside the project {out_dir}")
    if path.exists() and any(path.iterdir()) and not (path / "HEAD").is_file():
        raise PushTargetError(f"--push-to {path}: exists and is not a bare git repository")
    return str(path)


def push_main(repo: Path, target: str, bus: EventBus) -> bool:
    """Push main to `target` (a bare repository is created at a local path first)."""
    if not target:
        return True
    if "://" not in target and not (Path(target) / "HEAD").is_file():
        Path(target).mkdir(parents=True, exist_ok=True)
        git(["init", "-q", "--bare", "-b", MAIN], Path(target))
    # The file transport is off in the hardened settings (it guards submodule clones); this
    # push goes to the one repository the user named, so it is allowed for this command.
    proc = git(["-c", "protocol.file.allow=always", "push", "-q", target,
                f"{MAIN}:{MAIN}"], repo, check=False, timeout=300)
    if proc.returncode != 0:
        bus.emit(Error(message=f"push to {target} failed: {proc.stderr.strip()[:300]}",
                       where="build.push"))
        return False
    return True
