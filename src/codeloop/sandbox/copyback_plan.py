"""Decide what a sandboxed run's changes to the staged copy mean for the user's workspace:
which entries to write, which to delete, and which to refuse (and why).

The staged tree is hostile (architecture principle 11). It is walked without recursion and
without following links, through directory fds, and the walk is bounded: at most the
snapshot's size plus Limits.copyback_files entries, new entries no deeper than
Limits.copyback_depth and no longer than Limits.copyback_path_bytes, new file bytes within
Limits.copyback_mb, all before a deadline. Over a cap: CopyBackError naming it, before
anything in the workspace was touched.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.sandbox.fdpaths import open_dir_beneath, open_root
from codeloop.sandbox.host_policy import name_refusal, refusal, venv_refusal
from codeloop.sandbox.links import link_refusal
from codeloop.sandbox.staging import Snapshot, kind_of, signature
from codeloop.sandbox.types import Limits, SandboxError

MAX_REPORTED = 200  # refusals listed one by one; the rest are counted


class CopyBackError(SandboxError):
    """The copy-back was refused as a whole or failed; the workspace is as it was."""


@dataclass(frozen=True)
class Change:
    rel: str
    kind: str  # "dir" | "file" | "link"
    mode: int
    size: int
    replaces_dir: bool  # the snapshot had a directory here


@dataclass
class Plan:
    writes: list[Change] = field(default_factory=list)  # parents before children
    deletions: list[str] = field(default_factory=list)  # children before parents
    refused: list[str] = field(default_factory=list)  # "path: reason"
    refused_count: int = 0

    def refuse(self, rel: str, reason: str) -> None:
        self.refused_count += 1
        if len(self.refused) < MAX_REPORTED:
            self.refused.append(f"{rel}: {reason}")


class _Budget:
    def __init__(self, limits: Limits, snapshot_size: int, deadline: float | None) -> None:
        self.limits, self.deadline = limits, deadline
        self.max_walk = snapshot_size + limits.copyback_files
        self.walked = self.new_entries = self.new_bytes = 0

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise CopyBackError(f"copy-back took longer than the {self.limits.copyback_seconds}s"
                                " cap (Limits.copyback_seconds); nothing was copied back")

    def count_walked(self) -> None:
        self.walked += 1
        if self.walked > self.max_walk:
            raise self._over(f"more than {self.limits.copyback_files:,} new files and "
                             "directories", "copyback_files")

    def count_new(self, rel: str, size: int) -> None:
        self.new_entries += 1
        self.new_bytes += size
        lim = self.limits
        if self.new_entries > lim.copyback_files:
            raise self._over(f"more than {lim.copyback_files:,} changed files", "copyback_files")
        if self.new_bytes > lim.copyback_mb * 1024 * 1024:
            raise self._over(f"more than {lim.copyback_mb} MB of changed files", "copyback_mb")

    def check_shape(self, rel: str, depth: int) -> None:
        lim = self.limits
        if depth > lim.copyback_depth:
            raise self._over(f"a path {depth} levels deep (max {lim.copyback_depth}): "
                             f"{rel[:120]}...", "copyback_depth")
        if len(os.fsencode(rel)) > lim.copyback_path_bytes:
            raise self._over(f"a path longer than {lim.copyback_path_bytes} bytes: "
                             f"{rel[:120]}...", "copyback_path_bytes")

    @staticmethod
    def _over(what: str, cap: str) -> CopyBackError:
        return CopyBackError(f"the sandboxed program left {what} (cap Limits.{cap}); nothing "
                             "was copied back and the workspace is unchanged")


def make_plan(staging: Path, workspace: Path, snapshot: Snapshot, limits: Limits,
              deadline: float | None) -> Plan:
    plan, budget = Plan(), _Budget(limits, len(snapshot), deadline)
    seen = _walk_changes(staging, workspace, snapshot, plan, budget)
    kept = _plan_deletions(workspace, snapshot, seen, plan)
    plan.writes.sort(key=lambda c: c.rel.split("/"))  # parents first, in a stable order
    for change in [c for c in plan.writes if c.replaces_dir and c.rel in kept]:
        plan.writes.remove(change)
        plan.refuse(change.rel, "replacing it would remove a protected path inside it")
    return plan


def _walk_changes(staging: Path, workspace: Path, snapshot: Snapshot, plan: Plan,
                  budget: _Budget) -> set[str]:
    seen: set[str] = set()
    refused_dirs: set[str] = set()
    staging_real = os.path.realpath(staging)
    root_fd = open_root(staging)
    try:
        stack: list[tuple[str, ...]] = [()]
        while stack:
            parent = stack.pop()
            budget.check_time()
            dir_fd = open_dir_beneath(root_fd, parent)
            try:
                for entry in os.scandir(dir_fd):
                    parts = (*parent, entry.name)
                    st = entry.stat(follow_symlinks=False)
                    _make_readable(entry.name, dir_fd, st)
                    budget.count_walked()
                    rel = "/".join(parts)
                    seen.add(rel)
                    if _judge(rel, parts, st, snapshot, staging_real, workspace, plan, budget,
                              parent_refused="/".join(parent) in refused_dirs):
                        refused_dirs.add(rel)
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(parts)
            finally:
                os.close(dir_fd)
    finally:
        os.close(root_fd)
    return seen


def _make_readable(name: str, dir_fd: int, st: os.stat_result) -> None:
    """As an ordinary user the copy is ours, but the program may have chmod-ed entries to 0:
    give the owner back what reading needs (the recorded mode is still st's)."""
    need = 0o700 if stat.S_ISDIR(st.st_mode) else 0o400 if stat.S_ISREG(st.st_mode) else 0
    if need and st.st_mode & need != need and st.st_uid == os.geteuid() != 0:
        os.chmod(name, stat.S_IMODE(st.st_mode) | need, dir_fd=dir_fd)


def _judge(rel, parts, st, snapshot, staging_real, workspace, plan, budget,
           parent_refused: bool) -> bool:
    """Add the entry's change (if any) to the plan; True when it is a refused directory."""
    kind, old = kind_of(st), snapshot.get(rel)
    if kind == "dir" and old and old[0] == "dir":
        return parent_refused
    if kind != "dir" and old == signature(st):
        return False
    budget.check_shape(rel, len(parts))
    reason = (refusal(workspace, parts) or venv_refusal(staging_real, parts)
              or (None if kind else "not a regular file, directory or symlink")
              or (link_refusal(staging_real, rel) if kind == "link" else None))
    if reason:
        if not parent_refused:
            plan.refuse(rel, reason)
        return kind == "dir"
    budget.count_new(rel, st.st_size if kind == "file" else 0)
    # The owner keeps the rights to read and change what comes home (no 000 traps).
    mode = stat.S_IMODE(st.st_mode) & 0o777 | {"dir": 0o700, "file": 0o600}.get(kind, 0)
    plan.writes.append(Change(rel, kind, mode, st.st_size,
                              replaces_dir=bool(old and old[0] == "dir" and kind != "dir")))
    return False


def _plan_deletions(workspace: Path, snapshot: Snapshot, seen: set[str], plan: Plan) -> set[str]:
    """Deletions deepest first; refused ones keep their ancestors. The kept ancestors."""
    gone = sorted(set(snapshot) - seen, key=lambda r: (-r.count("/"), r))
    refused: set[str] = set()
    kept: set[str] = set()
    for rel in gone:
        parts = rel.split("/")
        reason = name_refusal(parts) or refusal(workspace, parts)
        if reason:
            refused.add(rel)
            kept.update("/".join(parts[:i]) for i in range(1, len(parts)))
        elif rel not in kept:
            plan.deletions.append(rel)
    for rel in sorted(refused):
        if rel.rpartition("/")[0] not in refused:  # report the top of a refused subtree only
            plan.refuse(rel, "not deleted: " + (name_refusal(rel.split("/"))
                                                 or refusal(workspace, rel.split("/"))))
    return kept
