"""context_loader: the workspace (path-guarded), the files named or changed by the git
revision, a small repo map, `.ai_context.json`'s history, and the workspace's tests as they
stand (the baseline the reviewer's before/after figures compare with)."""

from __future__ import annotations

from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.checks import run_workspace_tests
from codeloop.review.context import ReviewContext, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.history import read_history
from codeloop.review.inputs import changed_files
from codeloop.review.repomap import build_repo_map
from codeloop.review.state import ReviewState
from codeloop.sandbox.pathguard import PathRefused

MAX_GIT_DIFF = 8000


def load_context(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
                 trail: DebugTrail) -> StageOutput:
    guard = workspace_guard(state)
    files, git_diff, errors = list(state["files"]), "", []
    if state["git_rev"]:
        skipped: list[str] = []
        found, git_diff = changed_files(guard.root, state["git_rev"], skipped)
        files = list(dict.fromkeys([*files, *found]))
        trail.log("tool_call", f"git diff {state['git_rev']}: {len(found)} file(s)",
                  {"files": found})
        errors += [f"warning: not reviewed: {item}" for item in skipped]
    originals: dict[str, str | None] = {}
    for name in files:
        try:
            originals[name] = guard.read_bytes(name).decode("utf-8")
        except (OSError, PathRefused, UnicodeDecodeError) as exc:
            errors.append(f"{name} skipped: {exc}")
    files = [name for name in files if name in originals]
    repo = build_repo_map(guard)
    history, warning = read_history(guard)
    if warning:
        errors.append(f"warning: {warning}")
    baseline: dict = {"ran": False, "passed": 0, "failed": 0, "failures": []}
    if repo.test_files:
        baseline = run_workspace_tests(state["workspace"], [], timeout=ctx.sandbox_timeout,
                                       unsafe_no_sandbox=ctx.unsafe_no_sandbox)
        trail.log("tool_call", f"baseline tests: {baseline['passed']} passed, "
                               f"{baseline['failed']} failed", {"failures": baseline["failures"]})
    for error in errors:
        trail.log("error", error)
    shown = (f"{len(files)} file(s), {len(repo.python_files)} Python file(s) in the workspace, "
             f"{len(repo.test_files)} test file(s), {len(history)} history entr"
             f"{'y' if len(history) == 1 else 'ies'}")
    return StageOutput({
        "files": files, "originals": originals, "git_diff": git_diff[:MAX_GIT_DIFF],
        "repo_map": repo.text(), "test_files": repo.test_files, "history": history,
        "baseline_tests": baseline, "error_log": errors,
    }, shown)
