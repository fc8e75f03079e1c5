"""Reading a context-first reply (jobs/react/context_first.py) into the files it changes:
SEARCH/REPLACE blocks applied with the tolerant matcher, whole files under `FILE: path`
lines, a Python reply that rewrote only some functions merged into the file by name, a JSON
file's keys the reply lost and the request does not name put back, and files that do not
parse (Python, JSON) refused with a note for the next prompt."""

from __future__ import annotations

import ast

from codeloop import jsonsafe
from codeloop.jobs.artifacts import Artifact, artifact
from codeloop.jobs.definitions import (
    merge_definitions,
    restore_dropped_members,
    top_level_names,
)
from codeloop.jobs.edits import apply_blocks, edit_blocks, whole_files
from codeloop.jobs.json_keys import restore_dropped_keys
from codeloop.jobs.edit_engine.context_plan import Plan


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
        for item in applied.artifacts:
            if item["content"] != shown.get(item["file_path"], ""):
                out[item["file_path"]] = item["content"]
        problems += [f"an edit of {f.path} did not apply: {f.problem}"
                     for f in applied.failures]
    for path, content in whole_files(reply, only).items():
        path = _resolve(path.removeprefix("./"), targets, plan.spec)
        if path is None or path in out:
            continue
        old = shown.get(path)
        if old is not None and path.endswith(".py"):
            content, problem = _whole_or_merged(old, content, path)
            if problem:
                problems.append(problem)
                continue
        elif not _parses(path, content):
            kind = "JSON" if path.endswith(".json") else "Python"
            problems.append(f"the new {path} does not parse as {kind}; it was not written")
            continue
        elif old is not None and path.endswith(".json"):
            content, _ = restore_dropped_keys(old, content, request)
        out[path] = content
    return out, problems


def _resolve(path: str, targets: list[str], spec: list[str]) -> str | None:
    """The file a reply's name means: exactly, or the one target or test it ends."""
    if path in targets or path in spec:
        return path
    ends = [t for t in targets + spec if t.endswith("/" + path) or path.endswith("/" + t)]
    if len(ends) == 1:
        return ends[0]
    if "/" not in path and " " not in path and "." in path:
        return path  # a new file the model decided to add
    return None


def _whole_or_merged(old: str, content: str, path: str) -> tuple[str, str]:
    """A Python reply for an existing file: the whole file when it keeps every function and
    class, or defines as many as the file did (a rename); merged by name when it is only
    some of them; refused when it does not parse. Either way, a class sent with some of its
    methods gets the others back (definitions.restore_dropped_members)."""
    before, after = top_level_names(old), top_level_names(content)
    if after is None:
        return old, f"the new {path} does not parse as Python; it was not written"
    if before is None or before <= after or len(after) >= len(before):
        return restore_dropped_members(old, content), ""
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
