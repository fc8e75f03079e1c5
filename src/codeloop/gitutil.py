"""The one way codeloop runs git on the host: every command goes through git_hardening
(no system or global config, hooks, fsmonitor, submodules, nor filter/diff/merge drivers,
no prompts, no optional locks), and a fixed identity when the repository has none.

Workspaces hold code a model wrote, so nothing in one (a planted hook, a `.gitattributes`
filter, a hostile repository in place of a submodule's `.git`) may make git run a program.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.git_hardening import UnsafeGitConfig, git_env, hardened_argv  # git_env: re-exported

FALLBACK_NAME, FALLBACK_EMAIL = "codeloop", "codeloop@localhost"


class GitError(Exception):
    def __init__(self, args: list[str], returncode: int, stderr: str) -> None:
        super().__init__(f"git {' '.join(args)} failed ({returncode}): {stderr.strip()[:500]}")
        self.args_ = args
        self.returncode = returncode
        self.stderr = stderr


class GitRefused(GitError):
    """The repository's config names a special file git would block on; nothing ran."""

    def __init__(self, args: list[str], reason: str) -> None:
        super().__init__(args, -1, reason)
        Exception.__init__(self, reason)


class GitTimeout(GitError):
    """git did not finish within its time bound (and was killed)."""

    def __init__(self, args: list[str], seconds: float) -> None:
        message = (f"git {args[0] if args else ''} did not finish within {seconds:g} s "
                   "(a special file in the repository?)")
        super().__init__(args, -1, message)
        Exception.__init__(self, message)


def git(args: list[str], cwd: Path | str, *, check: bool = True, input: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `git args` in cwd with the hardened settings, within `timeout` seconds; GitError
    when check and it fails, and always when it is refused (GitRefused) or times out
    (GitTimeout): one line each."""
    try:
        argv = hardened_argv(list(args), cwd)
    except UnsafeGitConfig as exc:
        raise GitRefused(list(args), str(exc)) from None
    try:
        proc = subprocess.run(argv, check=False, cwd=cwd, env=git_env(), input=input,
                              capture_output=True, text=True, errors="replace",
                              timeout=timeout,
                              stdin=None if input is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise GitTimeout(list(args), timeout) from None
    if check and proc.returncode != 0:
        raise GitError(list(args), proc.returncode, proc.stderr)
    return proc


def _identity(cwd: Path | str) -> list[str]:
    """-c user.name/email only where the repository configures none."""
    out: list[str] = []
    for key, fallback in (("user.name", FALLBACK_NAME), ("user.email", FALLBACK_EMAIL)):
        if git(["config", "--get", key], cwd, check=False).returncode != 0:
            out += ["-c", f"{key}={fallback}"]
    return out


def init_repo(path: Path | str, branch: str = "main") -> Path:
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    git(["init", "-q", "-b", branch], path)
    return path


def status(cwd: Path | str) -> list[str]:
    """`git status --porcelain` lines, e.g. ' M src/a.py', '?? new.py'."""
    out = git(["status", "--porcelain", "--untracked-files=all"], cwd).stdout
    return [line for line in out.splitlines() if line]


def nested_repositories(cwd: Path | str) -> list[str]:
    """Gitlinks in the index and untracked repositories below the top level."""
    staged = git(["ls-files", "--stage", "-z"], cwd).stdout.split("\0")
    links = [entry.split("\t", 1)[1] for entry in staged if entry.startswith("160000 ")]
    others = git(["ls-files", "--others", "--exclude-standard", "-z"], cwd).stdout.split("\0")
    return links + [name.rstrip("/") for name in others if name.endswith("/")]


def add_all(cwd: Path | str) -> None:
    """`git add -A`, minus submodules and nested repositories: git would run `git status`
    inside each (with that repository's config and filters, whatever -c says), and
    codeloop never moves a submodule pointer or embeds a repository anyway."""
    excluded = [f":(exclude,literal){path}" for path in nested_repositories(cwd)]
    git(["add", "-A", "--", ":/", *excluded], cwd)


def commit_all(cwd: Path | str, message: str) -> str | None:
    """Stage everything (but nested repositories) and commit; the new commit's sha, or None
    if nothing changed."""
    add_all(cwd)
    if git(["diff", "--cached", "--quiet"], cwd, check=False).returncode == 0:
        return None
    git([*_identity(cwd), "commit", "-q", "--no-verify", "-m", message], cwd)
    return git(["rev-parse", "HEAD"], cwd).stdout.strip()


def diff(cwd: Path | str, ref: str | None = None, *, staged: bool = False) -> str:
    args = ["diff", "--no-ext-diff", "--no-textconv", "--no-color"]
    if staged:
        args.append("--cached")
    if ref:
        args.append(ref)
    return git(args, cwd).stdout


def current_branch(cwd: Path | str) -> str:
    return git(["symbolic-ref", "--short", "HEAD"], cwd).stdout.strip()


def create_branch(cwd: Path | str, name: str, *, start: str | None = None,
                  checkout: bool = True) -> None:
    if checkout:
        git(["checkout", "-q", "-b", name, *([start] if start else [])], cwd)
    else:
        git(["branch", name, *([start] if start else [])], cwd)


def checkout(cwd: Path | str, name: str) -> None:
    git(["checkout", "-q", name], cwd)


@dataclass
class MergeResult:
    ok: bool
    conflicts: list[str] = field(default_factory=list)
    output: str = ""


def merge(cwd: Path | str, branch: str, message: str | None = None) -> MergeResult:
    """Merge `branch` into the current branch; on conflict the merge is left in progress
    (resolve and commit_all, or abort_merge) and the conflicting paths are listed."""
    args = [*_identity(cwd), "merge", "--no-ff", "--no-edit", "--no-verify"]
    proc = git(args + (["-m", message] if message else []) + [branch], cwd, check=False)
    if proc.returncode == 0:
        return MergeResult(True, [], proc.stdout)
    conflicts = git(["diff", "--name-only", "--diff-filter=U"], cwd, check=False).stdout
    files = [line for line in conflicts.splitlines() if line]
    if not files:
        raise GitError(args + [branch], proc.returncode, proc.stderr or proc.stdout)
    return MergeResult(False, files, proc.stdout + proc.stderr)


def abort_merge(cwd: Path | str) -> None:
    git(["merge", "--abort"], cwd)
