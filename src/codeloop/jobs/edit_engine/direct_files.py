"""The context-first edit's bookkeeping of files (jobs/react/context_first.py): the project's
text as it is now, and putting files back to a state that passed the tests."""

from __future__ import annotations

from pathlib import PurePosixPath

from codeloop.jobs.edit_engine.context_plan import SOURCE_SUFFIXES
from codeloop.jobs.request_files import is_test_path
from codeloop.quality.lint import lint_code

MAX_PROJECT_CHARS = 400_000  # the text searched for the names a request asks for
MAX_FILE_BYTES = 1_000_000  # a bigger file is not read (model-written: it could be any size)
MAX_FINDINGS = 8


def readable_text(ws, path: str) -> str | None:
    """A file's text, or None for a binary, undecodable or huge one (never read whole into
    memory beyond MAX_FILE_BYTES: the model may have written it)."""
    return ws.read_text_for_search(path, MAX_FILE_BYTES)


def project_texts(ws, files: list[str]) -> dict[str, str]:
    """The project's source files as they are now (each up to MAX_FILE_BYTES, up to
    MAX_PROJECT_CHARS in all): where the names a request asks for are looked for, and what
    docstring checks compare."""
    out: dict[str, str] = {}
    total = 0
    for path in files:
        if not path.endswith(SOURCE_SUFFIXES) or total > MAX_PROJECT_CHARS:
            continue
        text = readable_text(ws, path)
        if text is not None:
            out[path] = text
            total += len(text)
    return out


def lint_findings(shown: dict[str, str], paths: list[str]) -> list[str]:
    """The linter's errors and warnings (pylint's, and ruff's bug rules) in the Python files
    to edit, as `path line N: CODE message`. Linted as temp copies, the workspace's own lint
    config ignored (quality/lint.py): nothing of the workspace configures the tools."""
    out: list[str] = []
    for path in paths:
        if not path.endswith(".py") or is_test_path(path) or path not in shown:
            continue
        report = lint_code(shown[path], PurePosixPath(path).name)
        out += [f"{path} {finding.format()}"
                for finding in report.errors + report.warnings + report.ruff]
    return list(dict.fromkeys(out))[:MAX_FINDINGS]


def restore_files(box, passing: dict[str, str], original: dict[str, str], existed: set[str],
                  shown: dict[str, str], changed: list[str]) -> None:
    """Put the files back as they passed: each file changed since gets its passing text, or
    its text from before the turn (`original` holds it for every file that was there and got
    written, when it could be read), or is deleted when it did not exist before the turn
    (`existed`); a file that existed and could not be read stays as it is; a passing file
    no longer among the changed ones (the workspace went back to the start) is written
    again. Writes go through `box`'s write_file (the path guard, the events); `shown` and
    `changed` are updated in place."""
    for path in list(changed):
        if path in passing or path in original:
            content = passing.get(path, original.get(path, ""))
            if shown.get(path) != content:
                box.run("write_file", {"path": path, "content": content})
                shown[path] = content
            if path not in passing:
                changed.remove(path)
        elif path in existed:
            continue  # there before the turn but unreadable then: left as it is, not deleted
        else:
            box.workspace.delete(path)
            shown.pop(path, None)
            changed.remove(path)
    for path, content in passing.items():
        if path not in changed:
            box.run("write_file", {"path": path, "content": content})
            shown[path] = content
            changed.append(path)
