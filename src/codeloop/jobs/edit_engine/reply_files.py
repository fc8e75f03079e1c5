"""Reading a context-first reply (jobs/react/context_first.py) into the files it changes:
SEARCH/REPLACE blocks applied with the tolerant matcher, whole files under `FILE: path`
lines, a Python reply that rewrote only some functions merged into the file by name, a JSON
file's keys the reply lost and the request does not name put back, and files that do not
parse (Python, JSON) refused with a note for the next prompt (a Python file whose only fault
is an annotation in prose kept without it: prose_annotations.py)."""

from __future__ import annotations

import ast
import re

from codeloop import jsonsafe
from codeloop.jobs.artifacts import Artifact, artifact
from codeloop.jobs.definitions import (
    merge_definitions,
    restore_dropped_members,
    top_level_names,
)
from codeloop.jobs.edit_engine.context_plan import Plan
from codeloop.jobs.edit_engine.keep_content import keep_unmentioned
from codeloop.jobs.edit_engine.loose_edits import salvage, with_salvage
from codeloop.jobs.edit_engine.prose_annotations import syntax_problem, without_prose_annotations
from codeloop.jobs.edits import apply_blocks, edit_blocks, whole_files
from codeloop.jobs.extract import code_blocks
from codeloop.jobs.json_keys import restore_dropped_keys

_PLAIN_PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*")


def files_from_reply(reply: str, plan: Plan, shown: dict[str, str],
                     request: str = "") -> tuple[dict[str, str], list[str]]:
    """{path: new content} from a context-first reply, and what of it could not be used.
    `shown`: the files as the prompt showed them (for SEARCH/REPLACE blocks and merging);
    `request`: what the user asked (a JSON key it names may go; others come back)."""
    targets = plan.edit + plan.new
    only = targets[0] if len(targets) == 1 else None
    out: dict[str, str] = {}
    problems: list[str] = []
    blocks = edit_blocks(reply)
    if blocks:
        artifacts: list[Artifact] = [artifact(p, shown.get(p, "")) for p in targets]
        applied = apply_blocks(artifacts, blocks)
        if applied.failures:  # a block broken in form may still hold the functions
            applied = with_salvage(reply, applied)
        for item in applied.artifacts:
            if item["content"] != shown.get(item["file_path"], ""):
                out[item["file_path"]] = item["content"]
        problems += [f"an edit of {f.path} did not apply: {f.problem}"
                     for f in applied.failures]
    for path, content in whole_files(reply, only).items():
        named, path = path, _resolve(path.removeprefix("./"), targets, plan.spec)
        if path is None:
            problems.append(f"{named} is not a file of this request; it was not written")
            continue
        if path in out:
            continue
        old = shown.get(path)
        if path.endswith(".py"):
            content, said = _parseable(path, content)
            problems += [said] if said else []
            if content is None:
                continue
        if old is not None and path.endswith(".py"):
            content, problem = _whole_or_merged(old, content, path, request)
            if problem:
                problems.append(problem)
                continue
        elif not _parses(path, content):
            problems.append(f"the new {path} does not parse as JSON; it was not written")
            continue
        elif old is not None and path.endswith(".json"):
            content, _ = restore_dropped_keys(old, content, request)
        out[path] = content
    if not out and not blocks:  # nothing in the strict forms: what the reply still holds
        out, more = _loose_code(reply, targets, shown)
        problems += more
    return out, problems


def _loose_code(reply: str, targets: list[str], shown: dict[str, str]
                ) -> tuple[dict[str, str], list[str]]:
    """Recognisable code for a target in a reply of no strict form: the functions of
    malformed SEARCH/REPLACE parts (loose_edits.salvage), or a fenced block naming no file
    whose functions or classes only one target defines, merged into it by name."""
    existing = [p for p in targets if p in shown]
    found = salvage(reply, [artifact(p, shown[p]) for p in existing])
    if found.files:
        return found.files, []
    out: dict[str, str] = {}
    for block in code_blocks(reply):
        names = top_level_names(block)
        owners = [p for p in existing if p.endswith(".py")
                  and names and names & (top_level_names(shown[p]) or set())]
        if len(owners) == 1:
            merged = merge_definitions(out.get(owners[0], shown[owners[0]]), block)
            if merged is not None:
                out[owners[0]] = restore_dropped_members(shown[owners[0]], merged)
    return out, ([] if out else found.problems)


def _resolve(path: str, targets: list[str], spec: list[str]) -> str | None:
    """The file a reply's name means: exactly, or the one target or test it ends; never a
    name that is no plain path (`calc.py: def add`, copied from a listing)."""
    if not _PLAIN_PATH.fullmatch(path):
        return None
    if path in targets or path in spec:
        return path
    ends = [t for t in targets + spec if t.endswith("/" + path) or path.endswith("/" + t)]
    if len(ends) == 1:
        return ends[0]
    if "/" not in path and " " not in path and "." in path:
        return path  # a new file the model decided to add
    return None


def _parseable(path: str, content: str) -> tuple[str | None, str]:
    """(Python `content` that parses, or None; what to say of it): an annotation that is
    prose is taken out (prose_annotations.py); other text that does not parse is refused,
    with the line the parser stopped at."""
    if not (problem := syntax_problem(content)):
        return content, ""
    mended, taken = without_prose_annotations(content)
    if taken:
        return mended, (f"the harness took out of {path} the annotations that are not Python "
                        f"({', '.join(f'`{a}`' for a in taken[:3])}); annotate with Python "
                        "types (`list[X]`, `X | None`) or not at all")
    return None, f"the new {path} does not parse as Python ({problem}); it was not written"


def _whole_or_merged(old: str, content: str, path: str, request: str = "") -> tuple[str, str]:
    """A Python reply for an existing file: the whole file when it keeps every function and
    class, or defines as many as the file did (a rename), with what the model did not mean
    to change kept (keep_content.keep_unmentioned: docstrings, constants); merged by name
    when it is only some of them; refused when it does not parse. Either way, a class sent
    with some of its methods gets the others back (definitions.restore_dropped_members)."""
    before, after = top_level_names(old), top_level_names(content)
    if after is None:
        return old, f"the new {path} does not parse as Python; it was not written"
    if before is None or before <= after or len(after) >= len(before):
        return restore_dropped_members(old, keep_unmentioned(old, content, request)), ""
    merged = merge_definitions(old, content)
    if merged is None:
        return old, f"the reply for {path} dropped functions and could not be merged"
    return restore_dropped_members(old, merged), ""


def _parses(path: str, text: str) -> bool:
    """Python and JSON files must parse to be written; other files are taken as they are."""
    try:
        if path.endswith(".py"):
            ast.parse(text)
        elif path.endswith(".json"):
            jsonsafe.loads(text)
    except (SyntaxError, ValueError):
        return False
    return True
