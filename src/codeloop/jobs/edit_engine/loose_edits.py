"""Reading SEARCH/REPLACE replies that break the format, for what they hold.

Small models often send a correct fix in a broken block: no SEARCH part, a bare `=======`
between the old and the new function, the fixed code in both parts, no `>>>>>>> REPLACE`
line. The strict reader (jobs/edits.edit_blocks) finds no edit there, and dropping the reply
loses the fix. Read line by line instead: each part after a `=======` line is the new text;
when it holds functions or classes the file defines, they are merged into the file by name
(jobs/definitions, as the agent's edit path merges a partial rewrite); a block that is
well formed but for its missing end line is applied as a block. Whatever cannot be used is
said exactly (`problems`), so the next prompt can tell the model what was wrong.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from codeloop.jobs.artifacts import Artifact
from codeloop.jobs.definitions import merge_definitions, restore_dropped_members, top_level_names
from codeloop.jobs.edits import (
    Applied,
    EditBlock,
    EditFailure,
    apply_blocks,
    block_path,
    block_target,
)

_SEARCH = re.compile(r"^[ \t]*<{5,9}[ \t]*SEARCH\b")
_DIVIDER = re.compile(r"^[ \t]*={5,9}[ \t]*$")
_REPLACE = re.compile(r"^[ \t]*>{5,9}[ \t]*REPLACE\b")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


@dataclass
class LoosePart:
    path: str | None  # the file named before the block, as edits.block_path reads it
    search: str | None  # None: no `<<<<<<< SEARCH` line before its `=======`
    replace: str
    closed: bool  # ended by `>>>>>>> REPLACE`


@dataclass
class Salvaged:
    files: dict[str, str] = field(default_factory=dict)  # {path: new content}
    applied: int = 0
    problems: list[str] = field(default_factory=list)  # what was wrong, said exactly


def loose_parts(reply: str) -> tuple[list[LoosePart], list[str]]:
    """Every `=======` part of the reply, however its block is broken; and the problems of
    blocks that have no such part at all."""
    parts: list[LoosePart] = []
    problems: list[str] = []
    mode, search, path, lines = None, None, None, []
    offset = 0

    def emit(closed: bool) -> None:
        parts.append(LoosePart(path, search, "".join(lines), closed))

    for line in reply.splitlines(keepends=True):
        text = line.rstrip("\n")
        if _SEARCH.match(text):
            if mode == "replace":
                emit(False)
            elif mode == "search":
                problems.append("a <<<<<<< SEARCH block has no ======= line")
            mode, search, lines = "search", None, []
            path = block_path(reply, offset)
        elif _DIVIDER.match(text):
            if mode == "replace":
                emit(False)
            search = "".join(lines) if mode == "search" else None
            if mode is None:
                path = block_path(reply, offset)
            mode, lines = "replace", []
        elif _REPLACE.match(text):
            if mode == "replace":
                emit(True)
            mode, lines = None, []
        elif _FENCE.match(text) and mode is not None:
            if mode == "replace":
                emit(False)
            elif mode == "search":
                problems.append("a <<<<<<< SEARCH block has no ======= line")
            mode, lines = None, []
        else:
            lines.append(line)
        offset += len(line)
    if mode == "replace":
        emit(False)
    elif mode == "search":
        problems.append("a <<<<<<< SEARCH block has no ======= line")
    return parts, problems


def part_problem(part: LoosePart) -> str | None:
    """What is wrong with a part's block, in words the model can act on; None if nothing."""
    if part.search is None:
        return "a ======= line has no <<<<<<< SEARCH line (and the old lines) before it"
    if not part.search.strip():
        return "the SEARCH part is empty: copy the exact lines to replace from the file"
    if part.search == part.replace:
        return "the SEARCH and REPLACE parts are the same: REPLACE must hold the changed code"
    if not part.closed:
        return "the block has no >>>>>>> REPLACE line after the new lines"
    return None


def _merged(old: str, snippet: str) -> str | None:
    """`old` with the snippet's functions and classes put in by name, when the snippet is
    Python that defines at least one the file defines; None otherwise."""
    code = textwrap.dedent(snippet)
    names, have = top_level_names(code), top_level_names(old)
    if not names or not have or not names & have:
        return None
    merged = merge_definitions(old, code)
    return None if merged is None else restore_dropped_members(old, merged)


def salvage(reply: str, artifacts: list[Artifact]) -> Salvaged:
    """What a reply the strict reader found nothing usable in still holds for `artifacts`:
    {path: new content} of each Python file whose functions a part redefines (merged by
    name), or a block that lacks only its end line (applied as a block); and the exact
    problems of the parts that could not be used."""
    parts, problems = loose_parts(reply)
    current = {a["file_path"]: a["content"] for a in artifacts}
    paths = list(current)
    out = Salvaged(problems=list(problems))
    for part in parts:
        path = block_target(part.path, paths)
        problem = part_problem(part)
        if path is None:
            out.problems.append(f"{problem or 'a block'}; and it names no file shown "
                                f"({', '.join(paths)})")
            continue
        content = out.files.get(path, current[path])
        merged = _merged(content, part.replace) if path.endswith(".py") else None
        if merged is None and problem and part.search and part.search != part.replace \
                and not part.closed:  # only its end line is missing: apply it as a block
            applied = apply_blocks([Artifact(file_path=path, content=content,
                                             language="")], [EditBlock(path, part.search,
                                                                       part.replace)])
            if applied.applied:
                merged = applied.artifacts[0]["content"]
        if merged is not None and merged != content:
            out.files[path] = merged
            out.applied += 1
        elif problem:
            out.problems.append(f"{path}: {problem}")
    return out


def with_salvage(reply: str, result: Applied) -> Applied:
    """`result` (the strict blocks applied) with what `salvage` finds in the reply for the
    files whose edits failed: the failures it fixed dropped, the others saying what was
    wrong with their block when the block's form was the trouble."""
    failed = {f.path for f in result.failures}
    found = salvage(reply, [a for a in result.artifacts if a["file_path"] in failed])
    artifacts = [Artifact(file_path=a["file_path"], language=a["language"],
                          content=found.files.get(a["file_path"], a["content"]))
                 for a in result.artifacts]
    failures = []
    for failure in result.failures:
        if failure.path in found.files:
            continue
        said = [p.split(": ", 1)[1] for p in found.problems
                if p.startswith(f"{failure.path}: ")]
        if said:
            failure = EditFailure(failure.path, f"{said[0]} ({failure.problem})",
                                  failure.candidates)
        failures.append(failure)
    return Applied(artifacts, result.applied + found.applied, failures)
