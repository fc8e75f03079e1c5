"""coder (implementation only): writes the requested files as artifacts held in state, never
on disk, through the kit's edit engine (jobs/edit_engine). Context first: the files the
request names (that exist) are shown whole, with the workspace tests that import them as the
specification; the other files of the workspace are named in one line (a listing the model
could copy as files is never shown). New files only where the request gives a reason
(targets.no_reason_to_create); the review's checks run after each write (edit_site.py)."""

from __future__ import annotations

from codeloop.jobs.edit_engine import EditTask, run_edit
from codeloop.jobs.request_files import protects_tests
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.edit_site import ReviewSite, log_rounds
from codeloop.review.refiner import spec_tests
from codeloop.review.state import ReviewState
from codeloop.review.targets import request_targets, requested_new_files, workspace_python_files

ROUNDS = 2
MAX_NAMED = 20


def write_code(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
               trail: DebugTrail) -> StageOutput:
    guard = workspace_guard(state)
    known = workspace_python_files(guard)
    targets = request_targets(state, guard)
    new = requested_new_files(state["request"], known)
    spec = {p: t for p, t in spec_tests(state, list(targets)).items() if p not in targets}
    others = [p for p in known if p not in targets and p not in spec][:MAX_NAMED]
    context = (f"Other files in the workspace (not shown): {', '.join(others)}." if others
               else "")
    task = EditTask(request=state["request"], files={**spec, **targets}, edit=list(targets),
                    spec=list(spec), new=new, context=context,
                    protect_tests=protects_tests(state["request"]))
    site = ReviewSite(state, ctx, trail, {}, targets=list(targets))
    result = run_edit(ctx.llm, task, site, rounds=ROUNDS, bus=ctx.bus, stage="coder",
                      usage=usage, say=lambda text: trail.log("thinking", text))
    log_rounds(trail, result)
    artifacts = site.artifacts()
    if not artifacts:
        why = "; ".join(result.notes[-2:]) or "no file in a usable form"
        error = f"The coder wrote no file ({why})"[:600]
        return StageOutput({"workflow_status": "failed", "error_log": [error],
                            "refused_paths": [*state["refused_paths"], *site.refusals]},
                           error, ok=False)
    return StageOutput({"artifacts": artifacts, "gate_refusals": site.refusals,
                        "refused_paths": [*state["refused_paths"], *site.refusals]},
                       f"{len(artifacts)} file(s): {', '.join(a['file_path'] for a in artifacts)}")
