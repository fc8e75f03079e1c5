"""MergeAgent: one merge at a time (the scheduler calls it from its one thread). Clean: squash
onto main, drop the branch and worktree. Conflict: the branch is squashed and rebased onto
main, the model resolves each conflicted file (the whole file back, at most two rounds), the
tests run again, then the squash merge (the model's answers go through the kit's edit
engine, as a task's code does). Unresolved: the rebase is undone, the branch kept,
and the task fails naming the conflicting files. A branch holding a file the host policy
refuses (a native module, bytecode, `sitecustomize`...) is never merged; the task fails
naming it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codeloop.build.code_step import request_text
from codeloop.build.repo import (
    abort_rebase,
    branch_name,
    continue_rebase,
    delete_branch,
    rebase_on_main,
    remove_worktree,
    squash_branch,
    squash_merge,
    task_commit_message,
)
from codeloop.build.runtime import BuildRuntime
from codeloop.build.stacks import Stack
from codeloop.build.testing import run_tests
from codeloop.events import Progress
from codeloop.gitutil import GitError
from codeloop.jobs.edit_engine.api import Check, EditTask
from codeloop.jobs.edit_engine.rounds import run_edit
from codeloop.llm.base import LLMError
from codeloop.sandbox.pathguard import PathRefused
from codeloop.tools.base import ToolError
from codeloop.tools.workspace import Workspace

MARKERS = ("<<<<<<<", ">>>>>>>")
MAX_CONFLICT_CHARS = 24_000  # a bigger conflicted file is not given to a small model
RESOLVE_ROUNDS = 2


@dataclass
class MergeReport:
    ok: bool
    reason: str = ""  # why not merged
    resolved: list[str] | None = None  # files the model resolved


def merge_task(repo: Path, worktree: Path, task: dict[str, Any], stack: Stack,
               runtime: BuildRuntime) -> MergeReport:
    task_id = task["id"]
    branch = branch_name(task_id)
    message = task_commit_message(task_id, task["description"])
    first = squash_merge(repo, branch, message)
    if first.refused:
        return _refused(branch, first.refused)
    if first.ok:
        _drop(repo, worktree, branch)
        return MergeReport(True)
    _say(runtime, f"{task_id}: merge conflict in {', '.join(first.conflicts)}; rebasing")
    squash_branch(worktree, message)
    conflicts = rebase_on_main(worktree)
    resolved: list[str] = []
    if conflicts:
        problem = _resolve(worktree, conflicts, task, stack, runtime)
        if problem:
            abort_rebase(worktree)
            return MergeReport(False, f"merge conflict in {', '.join(conflicts)} not "
                                      f"resolved: {problem}; branch {branch} kept")
        continue_rebase(worktree, conflicts)
        resolved = conflicts
        _say(runtime, f"{task_id}: conflict resolved in {', '.join(conflicts)}; testing")
        tests = run_tests(stack, worktree, bus=runtime.bus,
                          unsafe_no_sandbox=runtime.unsafe_no_sandbox)
        if not tests.passed:
            return MergeReport(False, f"merge conflict in {', '.join(conflicts)} resolved, "
                                      f"but the tests fail ({tests.summary}); branch {branch} "
                                      "kept")
    second = squash_merge(repo, branch, message)
    if second.refused:
        return _refused(branch, second.refused)
    if not second.ok:
        return MergeReport(False, f"merge conflict in {', '.join(second.conflicts)} after the "
                                  f"rebase; branch {branch} kept")
    _drop(repo, worktree, branch)
    return MergeReport(True, resolved=resolved)


def _refused(branch: str, refused: list[str]) -> MergeReport:
    return MergeReport(False, f"not merged: the branch holds what the host would run "
                              f"({'; '.join(refused[:5])}); branch {branch} kept")


def _resolve(worktree: Path, conflicts: list[str], task: dict[str, Any], stack: Stack,
             runtime: BuildRuntime) -> str:
    """Each conflicted file resolved through the kit's edit engine (the file with git's
    markers in the prompt, the whole file back, at most RESOLVE_ROUNDS); "" when all are
    resolved, else why not."""
    site = ConflictSite(Workspace.at(worktree))
    llm = runtime.llm_for("merge")
    for path in conflicts:
        try:
            content = site.workspace.read_text(path)
        except ToolError as exc:
            return f"{path}: {exc}"
        if len(content) > MAX_CONFLICT_CHARS:
            return f"{path} is too large to resolve ({len(content)} characters)"
        site.paths = [path]
        request = request_text("merge", task_id=task["id"], description=task["description"],
                               path=path)
        try:
            result = run_edit(llm, EditTask(request=request, files={path: content},
                                            edit=[path], failure=site.check(),
                                            protect_tests=False),
                              site, rounds=RESOLVE_ROUNDS, bus=runtime.bus, stage="merge")
        except LLMError as exc:
            return f"the model failed on {path}: {exc}"
        if not result.passed:
            if not result.files:
                why = "; ".join(list(dict.fromkeys(result.notes))[:2])
                return f"no resolved {path} came back" + (f" ({why})" if why else "")
            return result.check.output if result.check else f"{path} was not resolved"
    return ""


class ConflictSite:
    """Where a conflict is resolved: the worktree in the middle of its rebase (writes
    through the path guard, nothing committed: the rebase goes on with them); the check is
    that no conflict marker is left and a Python file parses."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace, self.paths = workspace, []

    def write(self, path: str, text: str) -> str | None:
        if path not in self.paths:
            return f"{path}: only the conflicted file {', '.join(self.paths)} may be changed"
        try:
            self.workspace.write_text(path, text)
        except (ToolError, PathRefused) as exc:
            return f"{path}: {exc}"
        return None

    def check(self) -> Check:
        for path in self.paths:
            try:
                text = self.workspace.read_text(path)
            except ToolError as exc:
                return Check(False, f"{path}: {exc}")
            if any(line.startswith(MARKERS) or line.rstrip() == "======="
                   for line in text.splitlines()):
                return Check(False, f"conflict markers left in {path}")
            if path.endswith(".py"):
                try:
                    ast.parse(text)
                except SyntaxError as exc:
                    return Check(False, f"{path} does not parse: {exc.msg} (line {exc.lineno})")
        return Check(True)


def _drop(repo: Path, worktree: Path, branch: str) -> None:
    remove_worktree(repo, worktree)
    try:
        delete_branch(repo, branch)
    except GitError:
        pass


def _say(runtime: BuildRuntime, message: str) -> None:
    runtime.bus.emit(Progress(done=0, total=0, message=message))
