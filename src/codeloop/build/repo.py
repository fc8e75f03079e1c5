"""The build's git work, all through gitutil (hardened): the project repository, a branch and
a worktree per task, commits of single paths, squash merges, and the rebase that brings a
conflicting branch onto main.

Commits take only the paths a tool changed (`commit_paths`), never `add -A` in a tree the
model writes: its own `.gitignore` must not decide what gets committed (principle 13), and the
installed dependencies (node_modules, .deps) are excluded in `.git/info/exclude`, which the
model cannot reach. The host policy judges every path a commit stages and every path a task
branch changed before it is merged onto main: what the host would run by itself (a native
module, bytecode, `.pth`, `sitecustomize`...) never lands in the user's repository.
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.gitutil import GitError, git, init_repo, status
from codeloop.sandbox.host_policy import refusal
from codeloop.sandbox.pathguard import HostFileRefused
from codeloop.sandbox.removal import remove_tree
from codeloop.scratch import UnsafeScratch, check_private_dir

MAIN = "main"
TASK_TRAILER = "Build-Task"
# Adding and removing worktrees writes the repository's shared metadata (.git/worktrees,
# refs): task threads doing it at once could fail on git's locks. One at a time.
_WORKTREE_LOCK = threading.Lock()


def branch_name(task_id: str) -> str:
    return f"task/{task_id}"


def init_project(out_dir: Path, excluded: list[str]) -> None:
    """A new repository on main with codeloop's identity and the dependency dirs excluded."""
    init_repo(out_dir, MAIN)
    git(["config", "user.name", "codeloop build"], out_dir)
    git(["config", "user.email", "build@codeloop.localhost"], out_dir)
    exclude = out_dir / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("".join(f"/{name.strip('/')}/\n" for name in excluded) +
                       "__pycache__/\n.pytest_cache/\n", encoding="utf-8")


def head(cwd: Path, ref: str = "HEAD") -> str:
    return git(["rev-parse", "--verify", "-q", ref], cwd).stdout.strip()


def commit_paths(cwd: Path, paths: list[str], message: str) -> str | None:
    """Stage exactly `paths` (literally: no pathspec magic) and commit; the sha, or None
    when nothing changed. HostFileRefused, with nothing staged, for a path the host policy
    refuses."""
    for path in paths:
        why = refusal(cwd, path.split("/"))
        if why:
            raise HostFileRefused(path, why)
    if paths:
        # -f: a path the tool wrote is committed even if the model's .gitignore names it.
        git(["--literal-pathspecs", "add", "-A", "-f", "--", *paths], cwd)
    if git(["diff", "--cached", "--quiet"], cwd, check=False).returncode == 0:
        return None
    git(["commit", "-q", "--no-verify", "-m", message], cwd)
    return head(cwd)


def restore_main(repo: Path) -> list[str]:
    """Main's index and work tree back to HEAD after a kill (one in a merge can leave
    either dirty, or git's index.lock behind): tracked changes reset, untracked files and
    directories removed; ignored ones stay (`clean` without -x: node_modules, the dependency
    dirs in .git/info/exclude). The `git status` lines that were dropped."""
    lock = repo / ".git" / "index.lock"
    if lock.is_file() and not lock.is_symlink():  # the killed run's: no git holds it now
        lock.unlink()
    dropped = status(repo)
    if dropped:
        git(["reset", "-q", "--hard", "HEAD"], repo)
        git(["clean", "-q", "-f", "-d"], repo)
    return dropped


def tracked_changes(cwd: Path) -> list[str]:
    """Tracked files changed in the work tree (what a reset would throw away)."""
    out = git(["diff", "--name-only", "HEAD"], cwd).stdout
    return [line for line in out.splitlines() if line]


def task_commit_message(task_id: str, summary: str) -> str:
    text = " ".join(summary.split()) or "task"
    subject = text if len(text) <= 72 else text[:69].rsplit(" ", 1)[0] + "..."
    return f"{task_id}: {subject}\n\n{text}\n\n{TASK_TRAILER}: {task_id}\n"


def merged_tasks(repo: Path) -> list[str]:
    """Task ids whose squash commit is on main (the ground truth after a kill), oldest first."""
    proc = git(["log", "--reverse", f"--format=%(trailers:key={TASK_TRAILER},valueonly)",
                MAIN, "--"], repo, check=False)
    if proc.returncode != 0:  # no commit on main yet
        return []
    out = proc.stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


# ------------------------------------------------------------------ worktrees
def add_worktree(repo: Path, path: Path, branch: str, deps_dirs: list[str]) -> None:
    """A fresh worktree at `path` on `branch`, reset to main (an old one is removed first),
    with hard-linked copies of the installed dependency dirs."""
    with _WORKTREE_LOCK:
        # The run's private scratch dir, still: never a parent swapped for a symlink.
        check_private_dir(path.parent)
        _remove(repo, path)
        git(["worktree", "add", "-q", "-f", "-B", branch, str(path), MAIN], repo)
    link_deps(repo, path, deps_dirs)


def link_deps(repo: Path, path: Path, deps_dirs: list[str]) -> None:
    for name in deps_dirs:
        source, target = repo / name, path / name
        if source.is_dir() and not source.is_symlink() and not target.exists():
            shutil.copytree(source, target, symlinks=True, copy_function=_link_or_copy)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def remove_worktree(repo: Path, path: Path) -> None:
    """Remove a task's worktree; one whose parent is no longer the run's private scratch
    dir (swapped for a symlink) is left alone: nothing there is ours to delete."""
    with _WORKTREE_LOCK:
        try:
            check_private_dir(path.parent)
        except UnsafeScratch:
            return
        _remove(repo, path)


def prune_worktrees(repo: Path) -> None:
    """git forgets the worktrees whose directory is gone."""
    with _WORKTREE_LOCK:
        git(["worktree", "prune"], repo, check=False)


def _remove(repo: Path, path: Path) -> None:
    """Delete the worktree's directory ourselves (a symlink in its place is unlinked, never
    followed: `git worktree remove` would follow it), then let git forget it."""
    remove_tree(path)
    git(["worktree", "prune"], repo, check=False)


def delete_branch(repo: Path, branch: str) -> None:
    with _WORKTREE_LOCK:
        git(["branch", "-D", branch], repo, check=False)


def branch_exists(repo: Path, branch: str) -> bool:
    return git(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], repo,
               check=False).returncode == 0


# ------------------------------------------------------------------ merging
@dataclass
class MergeOutcome:
    ok: bool
    conflicts: list[str] = field(default_factory=list)
    commit: str = ""
    refused: list[str] = field(default_factory=list)  # "path: why", nothing was merged


def refused_paths(repo: Path, branch: str) -> list[str]:
    """The paths `branch` changed since it left main that the host policy refuses."""
    out = git(["diff", "--name-only", "--no-renames", "-z", f"{MAIN}...{branch}", "--"],
              repo).stdout
    return [f"{path}: {why}" for path in out.split("\0")
            if path and (why := refusal(repo, path.split("/")))]


def squash_merge(repo: Path, branch: str, message: str) -> MergeOutcome:
    """Squash `branch` onto main in the main work tree; on conflict main is left as it was.
    A branch holding a path the host policy refuses is not merged at all."""
    refused = refused_paths(repo, branch)
    if refused:
        return MergeOutcome(False, refused=refused)
    proc = git(["merge", "--squash", "--no-verify", branch], repo, check=False)
    if proc.returncode != 0:
        conflicts = unmerged(repo)
        git(["reset", "-q", "--hard", "HEAD"], repo, check=False)
        if not conflicts:
            raise GitError(["merge", "--squash", branch], proc.returncode,
                           proc.stderr or proc.stdout)
        return MergeOutcome(False, conflicts)
    if git(["diff", "--cached", "--quiet"], repo, check=False).returncode == 0:
        # Nothing to add (the branch's changes are on main already): an empty commit keeps
        # the task's trailer, which is how a resumed build knows it was merged.
        git(["commit", "-q", "--no-verify", "--allow-empty", "-m", message], repo)
    else:
        git(["commit", "-q", "--no-verify", "-m", message], repo)
    return MergeOutcome(True, [], head(repo))


def unmerged(cwd: Path) -> list[str]:
    out = git(["diff", "--name-only", "--diff-filter=U"], cwd, check=False).stdout
    return [line for line in out.splitlines() if line]


def squash_branch(worktree: Path, message: str) -> None:
    """The task branch's commits as one commit on its fork point (so a rebase stops once)."""
    base = git(["merge-base", "HEAD", MAIN], worktree).stdout.strip()
    if base != head(worktree):
        git(["reset", "-q", "--soft", base], worktree)
        git(["commit", "-q", "--no-verify", "--allow-empty", "-m", message], worktree)


def rebase_on_main(worktree: Path) -> list[str]:
    """Rebase the (squashed) branch onto main; the conflicting paths ([] when clean). On
    conflict the rebase stays in progress: `continue_rebase` or `abort_rebase`."""
    proc = git(["rebase", MAIN], worktree, check=False)
    if proc.returncode == 0:
        return []
    conflicts = unmerged(worktree)
    if not conflicts:
        git(["rebase", "--abort"], worktree, check=False)
        raise GitError(["rebase", MAIN], proc.returncode, proc.stderr or proc.stdout)
    return conflicts


def continue_rebase(worktree: Path, paths: list[str]) -> None:
    git(["--literal-pathspecs", "add", "--", *paths], worktree)
    git(["-c", "core.editor=true", "rebase", "--continue"], worktree)


def abort_rebase(worktree: Path) -> None:
    git(["rebase", "--abort"], worktree, check=False)


def changed_files(worktree: Path) -> list[str]:
    """Files the branch changed since it left main."""
    out = git(["diff", "--name-only", f"{MAIN}...HEAD"], worktree).stdout
    return [line for line in out.splitlines() if line]
