"""security_gate: the path guard on every artifact's target path, then bandit and the
secrets scan on its content and on the files the request names (they hold the problem the
request is about, whatever the model proposed). A new file the request gives no reason for
(targets.no_reason_to_create: a placeholder path like relative/path.py) is refused like a
path the guard refuses. A path the guard refuses (outside the workspace, `~`, `$VAR`,
a symlink, git metadata, codeloop.toml ...) is a HIGH finding and the artifact is dropped:
it can never be written. This gate's refusals (`gate_refusals`) also block the review that
follows: a change that aimed a file outside is not approved, and the refiner is told to
drop or rename the path. The files on disk that artifacts will replace are read here (their
originals), so the pending diff and persistence's conflict check know them."""

from __future__ import annotations

from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.checks import security_findings
from codeloop.review.context import ReviewContext, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.history import CONTEXT_FILE
from codeloop.review.state import Artifact, ReviewState
from codeloop.review.targets import no_reason_to_create, request_targets, workspace_python_files
from codeloop.sandbox.host_policy import refusal
from codeloop.sandbox.pathguard import PathGuard, PathRefused


def check_target(guard: PathGuard, path: str) -> tuple[str | None, str | None]:
    """(the workspace-relative path, None) or (None, why it is refused)."""
    try:
        parts = guard.parts(path)
        if not parts:
            return None, "it names the workspace itself"
        why = refusal(guard.root, parts)
        if why is not None:
            return None, why
        if parts[-1].lower().startswith(CONTEXT_FILE):  # persistence appends to it only
            return None, "the review history is written by codeloop only"
        guard.resolve(path)  # a symlink on the way or at the target
        target = guard.root.joinpath(*parts)
        if target.exists() and not target.is_file():
            return None, "the target exists and is not a regular file"
    except PathRefused as exc:
        return None, exc.reason
    return "/".join(parts), None


def refused_finding(path: str, why: str) -> dict:
    return {"tool": "pathguard", "severity": "high", "line": 0, "file_path": path,
            "message": f"refused target path {path!r}: {why}"}


def gate(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
         trail: DebugTrail) -> StageOutput:
    guard = workspace_guard(state)
    kept: list[Artifact] = []
    refused: list[dict] = []
    originals = dict(state["originals"])
    known: list[str] | None = None  # the workspace's Python files, read when first needed
    for artifact in state["artifacts"]:
        rel, why = check_target(guard, artifact["file_path"])
        if rel is None:
            refused.append(refused_finding(artifact["file_path"], why or "refused"))
            trail.log("error", refused[-1]["message"])
            continue
        if rel not in originals:
            try:
                originals[rel] = guard.read_bytes(rel).decode("utf-8") if guard.exists(rel) \
                    else None
            except (OSError, PathRefused, UnicodeDecodeError) as exc:
                refused.append(refused_finding(rel, f"the file on disk cannot be read: {exc}"))
                continue
        if originals.get(rel) is None:  # a new file: only where the request gives a reason
            if known is None:
                known = workspace_python_files(guard)
            why = no_reason_to_create(rel, state, known)
            if why is not None:
                refused.append(refused_finding(rel, why))
                trail.log("error", refused[-1]["message"])
                continue
        kept = [a for a in kept if a["file_path"] != rel]  # "./a.py" and "a.py": the last
        kept.append(Artifact(file_path=rel, content=artifact["content"],
                             language=artifact["language"]))
    findings: list[dict] = []
    scanned = {a["file_path"]: a["content"] for a in kept}
    # The files the request names hold the problem it is about, whatever the model proposed
    # (measured: a gate that scanned only a junk file the model wrote never saw it).
    for path, text in request_targets(state, guard).items():
        scanned.setdefault(path, text)
    for path, content in scanned.items():
        found = security_findings(path, content)
        trail.log("tool_call", f"bandit + secrets on {path}: "
                               f"{len(found)} finding(s)", {"findings": list(found)})
        findings += found
    high = sum(1 for f in findings if f["severity"] == "high")
    update = {"artifacts": kept, "security_findings": findings, "originals": originals,
              "refused_paths": [*state["refused_paths"], *refused],
              # with the refusals of the coder's or refiner's writes in this round
              "gate_refusals": [*(state.get("gate_refusals") or []), *refused]}
    if not kept:
        error = "No artifact left to review: every target path was refused"
        update.update(workflow_status="failed", error_log=[error])
        return StageOutput(update, error, ok=False)
    shown = (f"{len(findings)} finding(s) ({high} high) on {len(kept)} file(s)"
             + (f"; {len(refused)} path(s) refused" if refused else ""))
    return StageOutput(update, shown)
