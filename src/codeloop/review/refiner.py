"""refiner: changes the in-state artifacts to fix what the reviewer (or a person) found.

diff mode (default): the model answers with SEARCH/REPLACE blocks, applied by the tolerant
matcher; a block broken in form still gives the functions it holds (jobs/edit_engine/loose_edits.py,
merged by name); an edit that matches nothing, or a reply with nothing usable, is reflected
back once with the closest lines of the file or exactly what was wrong with its block. full mode (the benchmark's baseline): the model rewrites each file whole. Either way
one fresh prompt holds the files and the concrete failures (principle 5), and every changed
file gets a CodeDiff; each call's tokens are recorded in `refinements`."""

from __future__ import annotations

from typing import Any

from codeloop.events import Diff
from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edit_engine.loose_edits import salvage, with_salvage
from codeloop.jobs.edits import (
    Applied,
    EditFailure,
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
    result = _read_reply(reply.text, state["artifacts"], trail)
    if not result.failures:
        return result
    # one reflected retry, per the first failed edit: its file, the problem, the closest lines
    failure = result.failures[0]
    trail.log("error", f"edit on {failure.path} not applied: {failure.problem}")
    target = next((a for a in result.artifacts if a["file_path"] == failure.path), None)
    if target is None:  # it named no file shown: all of them again, with the problem
        retry_spec = spec
        what = "your last reply" if failure.path == "?" else \
            f"your last edit named {failure.path}"
        retry = spec.messages(request=state["request"], files=_files(result.artifacts),
                              problems=f"{problems}\n- ({what}: {failure.problem})")
    else:
        retry_spec = prompt("refiner_retry")
        retry = retry_spec.messages(
            path=failure.path, language=language_of(failure.path),
            content=target["content"][:MAX_FILE_CHARS], problem=failure.problem,
            candidates=failure.candidates, problems=problems)
    again = _read_reply(ctx.ask_logged(usage, trail, "refiner", retry_spec, retry).text,
                        result.artifacts, trail)
    return Applied(again.artifacts, result.applied + again.applied,
                   result.failures[1:] + again.failures)


def _read_reply(text: str, artifacts: list[Artifact], trail: DebugTrail) -> Applied:
    """A diff-mode reply read tolerantly: its SEARCH/REPLACE blocks; a whole file rewritten
    instead; or, from blocks broken in form (no SEARCH part, a bare =======, the same code
    in both parts, no end line), the functions they hold merged into the file by name. What
    is still unusable comes back as failures saying exactly what was wrong."""
    blocks = edit_blocks(text)
    if blocks:
        result = apply_blocks(artifacts, blocks)
        if result.failures:
            result = with_salvage(text, result)
        return result
    rewrites = rewritten_files(text, artifacts)
    if rewrites:  # the model rewrote the file instead: taken when it is the whole file
        trail.log("thinking", f"no SEARCH/REPLACE block; took the rewritten "
                              f"{', '.join(rewrites)} whole")
        return _replaced(artifacts, rewrites)
    found = salvage(text, artifacts)
    if found.files:
        trail.log("thinking", f"malformed SEARCH/REPLACE block(s); merged the code they "
                              f"hold into {', '.join(found.files)} by name")
        return _replaced(artifacts, found.files)
    only = artifacts[0]["file_path"] if len(artifacts) == 1 else "?"
    why = "; ".join(found.problems) or "the reply held no SEARCH/REPLACE block and no whole " \
        "file: answer with a block (FILE path, <<<<<<< SEARCH, the exact old lines, " \
        "=======, the new lines, >>>>>>> REPLACE)"
    return Applied(list(artifacts), 0, [EditFailure(only, why)])


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
