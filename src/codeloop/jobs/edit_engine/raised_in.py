"""Where a failing test run raised: in the code the model writes, or elsewhere (the test's own
assertion, a library). Read from pytest's traceback (long or short): in each failure or
collection-error section, the last `path:N: ...` location line of a project file (a relative
path: a library's frames are absolute) is the project frame that raised, or that called the
library that raised (the 1.5B's `bookmark.id = ...` on a pydantic model without `id`, which
pydantic's own frame raises).

Why it matters (build, jobs/edit_engine/rounds.py): when the 1.5B sends its code back
unchanged twice, its code and its own tests disagree. A test's assertion failing may be the
test's mistake (the test is repaired next); an exception raised inside the module the model
wrote (a module that does not import: `@validator('url', mode='before')`) is the code's,
and no test repair helps it. So is a name the tests import that the model's module does not
define (`ImportError: cannot import name 'Bookmark' from 'app.models'`, raised on the test's
import line: the 1.5B's bookmarks B1 forgot the `Bookmark` its task names, sent the module
back unchanged twice, and the failure was read as the test's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from codeloop.jobs.edit_engine.echo_focus import path_among

_HEADER = re.compile(r"^_{3,} (.+?) _{3,}\s*$", re.MULTILINE)
_LOCATION = re.compile(r"^([\w./-]+\.py):(\d+):(?: (.*))?$")
_E_LINE = re.compile(r"^E\s+(\S.*)$")
_MISSING_NAME = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
# a pydantic validator's own message: "Value error, Name must be alphanumeric [type=..."
_VALIDATOR_MESSAGE = re.compile(r"^E\s+(?:Value error|Assertion failed), (.+?)(?: \[type=.*)?$")
# where a section's traceback ends: pytest's next heading (the warnings summary, whose
# "/workspace/app/models.py:8: DeprecationWarning" is no frame) or captured output
_SECTION_END = re.compile(r"^(?:={3,}|-{3,}) .* (?:={3,}|-{3,})\s*$")


@dataclass(frozen=True)
class Raised:
    path: str
    line: int
    error: str  # the first E-line of the section ("TypeError: ... 'mode'")

    def said(self, source: str) -> str:
        """One line for a prompt: where it raised, the line, the error (line 0: the module
        lacks a name its importer wants)."""
        if not self.line:
            return f"importing from {self.path} raised {self.error}"
        lines = source.splitlines()
        text = lines[self.line - 1].strip() if 1 <= self.line <= len(lines) else ""
        return f"{self.path} line {self.line}" + (f" ({text})" if text else "") + \
            f" raised {self.error}"


def raised_in(output: str, paths: list[str],
              sources: Mapping[str, str | None] | None = None) -> list[Raised]:
    """The failures of a pytest run (`output`) whose exception was raised in one of `paths`
    (the files the model writes), in the order they appear. With `sources` (path: text), a
    pydantic validation error whose message one of those files writes counts as raised
    there: pytest shows no frame of a validator (inventory I1 at f6b8a6d: `Value error, Name
    must be alphanumeric` from the model's own made-up validator, read as the test's
    failure twice, its right test repaired and the task retried)."""
    found: list[Raised] = []
    headers = list(_HEADER.finditer(output))
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(output)
        section = output[header.end():end].splitlines()
        last = None
        error = ""
        for line in section:
            if _SECTION_END.match(line):
                break
            location = _LOCATION.match(line.strip())
            if location is not None and _in_project(location.group(1)):
                last = location
            elif not error and (e_line := _E_LINE.match(line)) is not None:
                error = e_line.group(1).strip()
        validator = _validator_raised(section, paths, sources or {})
        if validator is not None:
            found.append(validator)
            continue
        missing = _MISSING_NAME.search(error)
        module = _module_path(missing.group(2), paths) if missing else None
        if module is not None:  # the module the model writes lacks the name
            found.append(Raised(module, 0, error))
            continue
        if last is None or not error:
            continue
        path = path_among(last.group(1), paths)
        if path is not None:
            found.append(Raised(path, int(last.group(2)), error))
    return found


def _validator_raised(section: list[str], paths: list[str],
                      sources: Mapping[str, str | None]) -> Raised | None:
    """The validator of one of `paths` whose message a pydantic error in `section` says."""
    for line in section:
        said = _VALIDATOR_MESSAGE.match(line)
        if said is None:
            continue
        message = said.group(1).strip()
        for path in paths:
            text = sources.get(path) or ""
            at = text.find(message) if len(message) >= 8 else -1
            if at >= 0:
                return Raised(path, text.count("\n", 0, at) + 1, f"ValidationError: {message}")
    return None


def _module_path(module: str, paths: list[str]) -> str | None:
    """The one of `paths` that is the dotted `module` (app.models: app/models.py, or a
    package's __init__.py)."""
    base = module.replace(".", "/")
    return next((p for p in paths if p in (f"{base}.py", f"{base}/__init__.py")), None)


def _in_project(name: str) -> bool:
    """A project file: pytest names it relative to the project (or under /workspace, the
    sandbox's mount); an installed library's frame has an absolute path."""
    return not name.startswith("/") or name.startswith("/workspace/")
