"""refiner: changes the in-state artifacts to fix what the reviewer (or a person) found, through
the kit's edit engine (jobs/edit_engine): the reviewer's findings are the failure, the files
under review and the files the request names are the files to edit, the workspace tests
that import them are shown as the specification. The engine's rounds read any reply form
(whole files, functions, SEARCH/REPLACE, malformed blocks: recognisable code for a target is
used, never dropped for its format) and run the review's own checks after each write (the
site, edit_site.py: tests, compile and import, security findings), at most ROUNDS model
calls a refinement.

diff mode (default): long files are edited by SEARCH/REPLACE blocks, short ones rewritten
whole (what the engine asks for by length); full mode (the benchmark's baseline): every
file rewritten whole. Every changed file gets a CodeDiff; each call's tokens are recorded
in `refinements`."""

from __future__ import annotations

from typing import Any

from codeloop.events import Diff
from codeloop.jobs.edit_engine import EditTask, run_edit
from codeloop.jobs.edit_engine.api import Check
from codeloop.jobs.request_files import is_test_path, local_imports, protects_tests
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.diffs import make_diff
from codeloop.review.edit_site import ReviewSite, log_rounds
from codeloop.review.request_test import overlay
from codeloop.review.state import ReviewState
from codeloop.review.targets import request_targets
from codeloop.sandbox.pathguard import PathRefused

ROUNDS = 3
MAX_SPEC_FILES = 2
MAX_SPEC_CHARS = 4000


def spec_tests(state: ReviewState, edit: list[str]) -> dict[str, str]:
    """The workspace's test files that import a file to edit: the specification."""
    guard = workspace_guard(state)
    out: dict[str, str] = {}
    for test in state["test_files"]:
        try:
            text = guard.read_bytes(test)[:MAX_SPEC_CHARS].decode("utf-8")
        except (OSError, PathRefused, UnicodeDecodeError):
            continue
        if set(local_imports(text, test, state["test_files"] + edit)) & set(edit):
            out[test] = text
        if len(out) == MAX_SPEC_FILES:
            break
    return out


def _failure(problems: str, measured: Check | None) -> str:
    """The reviewer's findings with what the review's checks measure now (the test output
    with its assertion and values: the reviewer's list holds only the summary line, cut)."""
    if measured is None or measured.passed:
        return problems
    said = set(problems.splitlines())
    more = [line for line in measured.output.split("\n- ") if f"- {line}" not in said
            and line not in said]
    return problems + ("\n- " + "\n- ".join(m.removeprefix("- ") for m in more) if more
                       else "")


def refine(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
           trail: DebugTrail) -> StageOutput:
    number = state["refinement_iteration"] + 1
    mode = state["refiner_mode"]
    problems = state["last_error"] or "- review the code and fix what is wrong"
    trail.log("thinking", f"refinement {number} ({mode}) for:\n{problems}")
    current = {a["file_path"]: a["content"] for a in state["artifacts"]}
    targets = request_targets(state, workspace_guard(state))
    files = {**targets, **current}
    protect = protects_tests(state["request"]) or not state["request"]
    edit = [p for p in files if not (protect and is_test_path(p))]
    spec = {p: t for p, t in spec_tests(state, edit).items() if p not in edit}
    spec.update(overlay(state))  # the request's own test: what "done" means, measured
    last = state["refinements"][-1] if state["refinements"] else None
    site = ReviewSite(state, ctx, trail, files, targets=list(targets))
    start = site.check()  # its score: rounds that leave fewer tests passing are undone
    task = EditTask(request=state["request"] or "Fix the problems the review found.",
                    files={**spec, **files}, edit=edit, spec=list(spec),
                    failure=Check(False, _failure(problems, start),
                                  score=start.score if start is not None else None),
                    protect_tests=protect,
                    whole_files=mode == "full")
    result = run_edit(ctx.llm, task, site, rounds=ROUNDS, bus=ctx.bus, stage="refiner",
                      usage=usage, say=lambda text: trail.log("thinking", text),
                      sample_first=last is not None and not last.get("files_changed"))
    log_rounds(trail, result)
    artifacts = [a for a in site.artifacts() if a["file_path"] in current
                 or a["file_path"] in result.files]
    diffs = []
    for artifact in artifacts:
        old = current.get(artifact["file_path"], state["originals"].get(artifact["file_path"]))
        if old == artifact["content"]:
            continue
        diff = make_diff(artifact["file_path"], old, artifact["content"],
                         f"refinement {number}: {problems.splitlines()[0].lstrip('- ')}"[:200])
        diffs.append(diff)
        ctx.bus.emit(Diff(path=diff["file_path"], diff=diff["diff_hunks"]))
    record: dict[str, Any] = {
        "iteration": number, "mode": mode, "calls": usage.calls,
        "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
        "rounds": result.rounds, "checks_passed": result.passed,
        "files_changed": len(diffs)}
    update: dict[str, Any] = {"refinement_iteration": number, "artifacts": artifacts,
                              "code_diffs": diffs, "refinements": [record]}
    update.update(gate_refusals=site.refusals,  # the gate adds them to its own
                  refused_paths=[*state["refused_paths"], *site.refusals])
    if not diffs:
        why = "; ".join(result.notes[-2:]) or "the reply held no edit"
        update["error_log"] = [f"refinement {number} changed nothing ({why})"[:600]]
    shown = (f"refinement {number} ({mode}): {len(diffs)} file(s) changed in "
             f"{result.rounds} round(s); the review's checks "
             f"{'pass' if result.passed else 'still fail'}")
    return StageOutput(update, shown, ok=bool(diffs))

