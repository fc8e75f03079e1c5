"""persistence (approved): write the changed files atomically through the path guard (the
host policy refuses .git, codeloop.toml, .pth ... again here), then append the run to
`.ai_context.json`'s workflow_history (once: a resumed run whose entry is already the last
one does not append it again).

Nothing is written when any target changed on disk since the review read it (someone edited
the file while the run waited for approval): the person approved a diff against the old
text, and overwriting their edit would lose it. Nothing is written either when the digest of
the diffs about to be written is not the one the person approved (approval.py), or when the
workspace is not the directory the run started in (moved, or swapped for a symlink while
the run waited): the guard is pinned to its recorded identity, never re-resolved."""

from __future__ import annotations

import time

from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.digest import diff_digest
from codeloop.review.history import append_history, read_history
from codeloop.review.state import ReviewState
from codeloop.sandbox.pathguard import PathGuard, PathRefused


def _on_disk(guard: PathGuard, path: str) -> str | None:
    if not guard.exists(path):
        return None
    return guard.read_bytes(path).decode("utf-8", errors="surrogateescape")


def _refused(trail: DebugTrail, error: str) -> StageOutput:
    trail.log("error", error)
    return StageOutput({"workflow_status": "failed", "error_log": [error]}, error, ok=False)


def persist(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
            trail: DebugTrail) -> StageOutput:
    changes = list(state["pending_diffs"])
    if diff_digest(changes) != state.get("approved_digest"):
        return _refused(trail, "Nothing written: the pending change is not the diff that was "
                               "approved (its digest differs); decide on the current diff")
    try:
        guard = workspace_guard(state, pinned=True)
        # on disk now: the original, or already ours (a resumed run wrote it before dying)
        moved = [d["file_path"] for d in changes
                 if _on_disk(guard, d["file_path"]) not in (
                     state["originals"].get(d["file_path"]), d["modified_content"])]
    except PathRefused as exc:
        return _refused(trail, f"Nothing written: {exc.reason}")
    except OSError as exc:
        moved = [f"(unreadable: {exc})"]
    if moved:
        return _refused(trail, f"Nothing written: {', '.join(moved)} changed on disk since "
                               "the review read it; run the review again")
    written, errors = [], []
    for diff in changes:
        try:
            guard.write_text(diff["file_path"], diff["modified_content"])
        except (OSError, PathRefused) as exc:
            errors.append(f"{diff['file_path']} not written: {exc}")
            continue
        written.append(diff["file_path"])
        trail.log("tool_call", f"wrote {diff['file_path']} (+{diff['added']} -{diff['removed']})")
    entry = {"timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "run_id": state["run_id"], "workflow_type": state["workflow_type"],
             "status": "applied" if not errors else "partially applied",
             "artifacts": written,
             "notes": "; ".join(filter(None, [state["request"], state["human_message"]]))}
    try:
        history, _unreadable = read_history(guard)
        if state["run_id"] and history and history[-1].get("run_id") == state["run_id"]:
            # a resumed run: killed after appending, before the checkpoint saved that
            warning = None
            trail.log("thinking", "this run is already the last history entry: not appended "
                                  "again")
        else:
            warning = append_history(guard, entry)
    except (OSError, PathRefused) as exc:
        warning = f"history not updated: {exc}"
    if warning:
        errors.append(f"warning: {warning}")
        trail.log("error", warning)
    status = "applied" if written or not changes else "failed"
    shown = f"wrote {len(written)} file(s)" + (f"; {len(errors)} problem(s)" if errors else "")
    return StageOutput({"written": written, "workflow_status": status, "error_log": errors},
                       shown, ok=not errors)
