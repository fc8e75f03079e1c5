"""refiner: changes the in-state artifacts to fix what the reviewer (or a person) found.

diff mode (default): the model answers with SEARCH/REPLACE blocks, applied by the tolerant
matcher; an edit that matches nothing is reflected back once with the closest lines of the
file. full mode (the benchmark's baseline): the model rewrites each file whole. Either way
one fresh prompt holds the files and the concrete failures (principle 5), and every changed
file gets a CodeDiff; each call's tokens are recorded in `refinements`."""

from __future__ import annotations

from typing import Any

from codeloop.events import Diff
from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edits import (
    Applied,
    apply_blocks,
    edit_blocks,
    rewritten_files,
    whole_files,
)
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext, prompt
from codeloop.review.debug import DebugTrail
from codeloop.review.diffs import make_diff
from codeloop.review.state import Artifact, ReviewState

MAX_FILE_CHARS = 8000


def _files(artifacts: list[Artifact]) -> list[dict[str, str]]:
    return [{"path": a["file_path"], "content": a["content"][:MAX_FILE_CHARS],
             "language": a["language"]} for a in artifacts]


def _temperature(state: ReviewState, spec) -> float | None:
    """The spec's own temperature, unless the last refinement changed nothing: then the
    same prompt would get the same (greedy) answer again, so sample instead."""
    last = state["refinements"][-1] if state["refinements"] else None
    if last is not None and not last.get("files_changed"):
        return float(spec.extra.get("retry_temperature", spec.temperature))
    return None


def _diff_mode(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
               trail: DebugTrail, problems: str) -> Applied:
    spec = prompt("refiner_diff")
    messages = spec.messages(request=state["request"], files=_files(state["artifacts"]),
                             problems=problems)
    reply = ctx.ask_logged(usage, trail, "refiner", spec, messages,
                           temperature=_temperature(state, spec))
    blocks = edit_blocks(reply.text)
    if not blocks:  # the model rewrote the file instead: take it when it is the whole file
        rewrites = rewritten_files(reply.text, state["artifacts"])
        if rewrites:
            trail.log("thinking", f"no SEARCH/REPLACE block; took the rewritten "
                                  f"{', '.join(rewrites)} whole")
        return _replaced(state["artifacts"], rewrites)
    result = apply_blocks(state["artifacts"], blocks)
    if not result.failures:
        return result
    # one reflected retry, per the first failed edit: its file, the problem, the closest lines
    failure = result.failures[0]
    trail.log("error", f"edit on {failure.path} not applied: {failure.problem}")
    target = next((a for a in result.artifacts if a["file_path"] == failure.path), None)
    if target is None:  # it named no file shown: all of them again, with the problem
        retry_spec = spec
        retry = spec.messages(request=state["request"], files=_files(result.artifacts),
                              problems=f"{problems}\n- (your last edit named {failure.path}: "
                                       f"{failure.problem})")
    else:
        retry_spec = prompt("refiner_retry")
        retry = retry_spec.messages(
            path=failure.path, language=language_of(failure.path),
            content=target["content"][:MAX_FILE_CHARS], problem=failure.problem,
            candidates=failure.candidates, problems=problems)
    again = apply_blocks(result.artifacts, edit_blocks(
        ctx.ask_logged(usage, trail, "refiner", retry_spec, retry).text))
    return Applied(again.artifacts, result.applied + again.applied,
                   result.failures[1:] + again.failures)


def _replaced(artifacts: list[Artifact], files: dict[str, str]) -> Applied:
    """The artifacts with `files` ({path: new content}) written over them (or added)."""
    current = {a["file_path"]: dict(a) for a in artifacts}
    for path, content in files.items():
        clean = path.removeprefix("./")
        current[clean] = {"file_path": clean, "content": content,
                          "language": language_of(clean)}
    return Applied([Artifact(**a) for a in current.values()],  # type: ignore[typeddict-item]
                   applied=len(files))


def _full_mode(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
               trail: DebugTrail, problems: str) -> Applied:
    spec = prompt("refiner_full")
    messages = spec.messages(request=state["request"], files=_files(state["artifacts"]),
                             problems=problems)
    reply = ctx.ask_logged(usage, trail, "refiner", spec, messages,
                           temperature=_temperature(state, spec))
    only = state["artifacts"][0]["file_path"] if len(state["artifacts"]) == 1 else None
    return _replaced(state["artifacts"], whole_files(reply.text, only))


def refine(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
           trail: DebugTrail) -> StageOutput:
    number = state["refinement_iteration"] + 1
    mode = state["refiner_mode"]
    problems = state["last_error"] or "- review the code and fix what is wrong"
    trail.log("thinking", f"refinement {number} ({mode}) for:\n{problems}")
    run = _diff_mode if mode == "diff" else _full_mode
    result = run(state, ctx, usage, trail, problems)
    before = {a["file_path"]: a["content"] for a in state["artifacts"]}
    first_problem = problems.splitlines()[0].lstrip("- ") if problems else ""
    diffs = []
    for artifact in result.artifacts:
        old = before.get(artifact["file_path"])
        if old == artifact["content"]:
            continue
        diff = make_diff(artifact["file_path"], old, artifact["content"],
                         f"refinement {number}: {first_problem}"[:200])
        diffs.append(diff)
        ctx.bus.emit(Diff(path=diff["file_path"], diff=diff["diff_hunks"]))
    record: dict[str, Any] = {
        "iteration": number, "mode": mode, "calls": usage.calls,
        "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
        "edits_applied": result.applied, "edits_failed": len(result.failures),
        "files_changed": len(diffs)}
    update: dict[str, Any] = {"refinement_iteration": number, "artifacts": result.artifacts,
                              "code_diffs": diffs, "refinements": [record]}
    if not diffs:
        why = "; ".join(f"{f.path}: {f.problem}" for f in result.failures[:2]) or \
            "the reply held no edit"
        update["error_log"] = [f"refinement {number} changed nothing ({why})"]
    shown = (f"refinement {number} ({mode}): {len(diffs)} file(s) changed, "
             f"{result.applied} edit(s) applied, {len(result.failures)} failed")
    return StageOutput(update, shown, ok=bool(diffs))
