"""Reading edits out of model replies: whole files (`FILE: path` + a fenced block: review's
coder and full refiner, the agent's context-first edits) and SEARCH/REPLACE blocks (the diff refiner's form),
applied to the in-state artifacts with the tools' tolerant matcher. Paths are taken as the
model wrote them: the security gate judges them before anything uses them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codeloop.jobs.artifacts import Artifact, language_of
from codeloop.jobs.definitions import top_level_names
from codeloop.jobs.extract import code_blocks
from codeloop.tools.matcher import apply_edit

_FILE_LINE = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:\*\*)?(?:FILE|File|file|Path|path)[ \t]*:[ \t]*(?:\*\*)?[ \t]*"
    r"`?([^`*\s]+)`?(?:\*\*)?[ \t]*$", re.MULTILINE)
_BLOCK = re.compile(
    r"^[ \t]*<{5,9}[ \t]*SEARCH[^\n]*\n(.*?)^[ \t]*={5,9}[ \t]*\n(.*?)^[ \t]*>{5,9}[ \t]*REPLACE"
    r"[^\n]*$", re.MULTILINE | re.DOTALL)
MAX_FILES_PER_REPLY = 20


def whole_files(reply: str, default_path: str | None = None) -> dict[str, str]:
    """{path: content} from `FILE: path` lines each followed by a fenced block. Without any
    such line, a reply of one block is the file `default_path` (when given)."""
    marks = list(_FILE_LINE.finditer(reply))[:MAX_FILES_PER_REPLY]
    out: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(reply)
        path = mark.group(1).strip()
        # The FILE line says which file the block is, whatever its language; for a Python
        # file a shell or JSON block before the code (a command to run) is still skipped.
        blocks = code_blocks(reply[mark.end():end], any_language=not path.endswith(".py"))
        if blocks:
            out[path] = _with_newline(blocks[0])
    if not out and default_path is not None:
        blocks = code_blocks(reply)
        if len(blocks) == 1:
            out[default_path] = _with_newline(blocks[0])
    return out


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


@dataclass
class EditBlock:
    path: str | None
    search: str
    replace: str


@dataclass
class EditFailure:
    path: str
    problem: str
    candidates: str = ""


@dataclass
class Applied:
    artifacts: list[Artifact]
    applied: int = 0
    failures: list[EditFailure] = field(default_factory=list)


def _path_before(reply: str, start: int) -> str | None:
    """The file name a block names: the last non-blank line before it that is no fence."""
    for line in reversed(reply[:start].splitlines()[-3:]):
        text = line.strip()
        if not text or text.startswith(("```", "~~~", ">>>>>>>")):
            continue
        text = text.strip("`*").strip()
        text = re.sub(r"^(?:#+\s*)?(?:FILE|File|file|Path|path)\s*:\s*", "", text).strip("`* ")
        return text if " " not in text and text else None
    return None


def edit_blocks(reply: str) -> list[EditBlock]:
    return [EditBlock(_path_before(reply, m.start()), m.group(1), m.group(2))
            for m in _BLOCK.finditer(reply)]


def _target(block_path: str | None, paths: list[str]) -> str | None:
    """Which artifact a block edits: its path exactly, else the one whose name ends it (or
    it ends), else the only artifact."""
    if block_path:
        clean = block_path.removeprefix("./")
        if clean in paths:
            return clean
        ends = [p for p in paths if p.endswith("/" + clean) or clean.endswith("/" + p)]
        if len(ends) == 1:
            return ends[0]
        return None
    return paths[0] if len(paths) == 1 else None


def apply_blocks(artifacts: list[Artifact], blocks: list[EditBlock]) -> Applied:
    """Apply the blocks in order to copies of the artifacts; a block that cannot be applied
    is reported with the closest lines of its file, the others still apply."""
    current = {a["file_path"]: dict(a) for a in artifacts}
    result = Applied(artifacts=[])
    for block in blocks:
        path = _target(block.path, list(current))
        if path is None and block.search.strip() and len(current) == 1:
            path = next(iter(current))  # a made-up name ("path/to/file.py"): the only file
        if path is None:
            if not block.search.strip() and block.path:  # a new file
                current[block.path] = {"file_path": block.path, "content": block.replace,
                                       "language": language_of(block.path)}
                result.applied += 1
            else:
                result.failures.append(EditFailure(block.path or "?", "no such file among the "
                                                   f"files shown ({', '.join(current)})"))
            continue
        content = current[path]["content"]
        if not block.search.strip() and not content.strip():
            current[path]["content"] = block.replace
            result.applied += 1
            continue
        edit = apply_edit(content, block.search, block.replace)
        if edit.ok:
            current[path]["content"] = edit.new_content
            result.applied += 1
        else:
            # plain lines, no numbers: small models copy a "12| " prefix into SEARCH
            shown = "\n...\n".join(c.text for c in edit.candidates)
            result.failures.append(EditFailure(path, edit.problem, shown))
    result.artifacts = [Artifact(**a) for a in current.values()]  # type: ignore[typeddict-item]
    return result


def rewritten_files(reply: str, artifacts: list[Artifact]) -> dict[str, str]:
    """A diff-mode reply that holds no SEARCH/REPLACE block but rewrites a file whole (small
    models often answer so): {path: new content} for each fenced block that names a file under
    review (a `FILE:` or bare-name line before it; the one file when only one is reviewed)
    and is that whole file, not a snippet: a Python file must parse and still define every
    function and class the old one does, or the rewrite would delete code."""
    paths = [a["file_path"] for a in artifacts]
    only = paths[0] if len(paths) == 1 else None
    found = whole_files(reply, only)
    if not found:
        for match in re.finditer(r"^[ \t]*(```|~~~)", reply, re.MULTILINE):
            named = _target(_path_before(reply, match.start()), paths)
            blocks = code_blocks(reply[match.start():])
            if named and blocks and named not in found:
                found[named] = _with_newline(blocks[0])
    old = {a["file_path"]: a["content"] for a in artifacts}
    out: dict[str, str] = {}
    for path, content in found.items():
        target = _target(path, paths)
        if target is None or content == old[target]:
            continue
        if target.endswith(".py"):
            before, after = top_level_names(old[target]), top_level_names(content)
            if after is None or (before is not None and not before <= after):
                continue
        elif len(content) < len(old[target]) // 2:  # not Python: a snippet, most likely
            continue
        out[target] = content
    return out


# The strict reader's rules for which file a block names, for jobs/edit_engine/loose_edits.py (which
# reads broken blocks by the same rules, not a copy of them).
block_path = _path_before
block_target = _target
