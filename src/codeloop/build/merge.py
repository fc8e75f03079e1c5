"""MergeAgent: one merge at a time (the scheduler calls it from its one thread). Clean: squash
onto main, drop the branch and worktree. Conflict: the branch is squashed and rebased onto
main, the model resolves each conflicted file (the whole file back, one call each), the
tests run again, then the squash merge. Unresolved: the rebase is undone, the branch kept,
and the task fails naming the conflicting files. A branch holding a file the host policy
refuses (a native module, bytecode, `sitecustomize`...) is never merged; the task fails
naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from codeloop.jobs.extract import outer_block
from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.stage import ask_model
from codeloop.llm.base import LLMError
from codeloop.sandbox.pathguard import PathRefused
from codeloop.tools.base import ToolError
from codeloop.tools.workspace import Workspace

MARKERS = ("<<<<<<<", ">>>>>>>")
MAX_CONFLICT_CHARS = 24_000  # a bigger conflicted file is not given to a small model


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
    """Write the model's resolution of each file; "" when all are resolved, else why not."""
    ws = Workspace.at(worktree)
    spec = load_prompt("codeloop.build", "resolve")
    llm = runtime.llm_for("merge")
    for path in conflicts:
        try:
            content = ws.read_text(path)
        except ToolError as exc:
            return f"{path}: {exc}"
        if len(content) > MAX_CONFLICT_CHARS:
            return f"{path} is too large to resolve ({len(content)} characters)"
        messages = spec.messages(stack_description=stack.description, task_id=task["id"],
                                 description=task["description"], path=path, content=content)
        try:
            reply = ask_model(llm, messages, stage="merge", bus=runtime.bus,
                              max_tokens=spec.max_tokens, temperature=spec.temperature)
        except LLMError as exc:
            return f"the model failed on {path}: {exc}"
        found = outer_block(reply.text)
        if found is None or not found[1]:
            return f"no resolved {path} in the model's answer"
        text = found[0]
        if any(line.startswith(MARKERS) for line in text.splitlines()):
            return f"conflict markers left in {path}"
        try:
            ws.write_text(path, text)
        except (ToolError, PathRefused) as exc:
            return f"{path}: {exc}"
    return ""


def _drop(repo: Path, worktree: Path, branch: str) -> None:
    remove_worktree(repo, worktree)
    try:
        delete_branch(repo, branch)
    except GitError:
        pass


def _say(runtime: BuildRuntime, message: str) -> None:
    runtime.bus.emit(Progress(done=0, total=0, message=message))
