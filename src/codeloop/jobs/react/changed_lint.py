"""The context-first edit lints what it changed (jobs/react/context_first.py), as the
implementer's lint_file does: the quality toolkit's ruff rules (quality/lint.py) on temp
copies of the Python files the turn changed, no workspace config read.

Only the findings the edit brought in count (by code and message, so moved lines do not
matter): a finding the file had before the turn is not the edit's to fix. Of those, an
error (the code cannot run as written: a syntax error, a name that is not defined, `return`
outside a function) fails the round like a failing test, even when the tests pass, and goes
into the next prompt; the rest are shown (progress events, and the turn's answer).
ruff alone, not pylint: ~20 ms a file against ~0.5 s, and its F-codes are exact where
pylint's errors (no-member...) guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import PurePosixPath

from codeloop.quality.lint import lint_code

# ruff codes of code that cannot run as written: syntax (E9), invalid comparisons and
# asserts (F63), statements outside their place (F7), undefined names (F82); E0001 is
# quality.lint's own syntax check.
ERROR_PREFIXES = ("E0001", "E9", "F63", "F7", "F82")
MAX_SHOWN = 8

Finding = tuple[int, str, str]  # line, code, message


@lru_cache(maxsize=256)
def _findings(path: str, text: str) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    """(findings, tool errors) of one file's text; cached by content, as a round re-lints
    the files it did not touch."""
    report = lint_code(text, PurePosixPath(path).name, pylint=False)
    found = [(f.line, f.code, f.message) for f in report.errors + report.ruff]
    return tuple(found), tuple(report.tool_errors)


class ChangedLint:
    """The lint of one turn's changes against the project's text at the turn's start."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.before: dict[str, str] = {}
        self._last_said = ""

    def start(self, before: dict[str, str]) -> None:
        self.before, self._last_said = dict(before), ""

    def new_findings(self, now: dict[str, str]) -> tuple[list[str], list[str]]:
        """(errors, warnings) the turn brought into its changed Python files, as
        `path:line: CODE message`."""
        errors: list[str] = []
        warnings: list[str] = []
        for path, text in now.items():
            if not path.endswith(".py") or self.before.get(path) == text:
                continue
            found, problems = _findings(path, text)
            old = Counter((code, message) for _, code, message in
                          _findings(path, self.before[path])[0]) if path in self.before \
                else Counter()
            for line, code, message in found:
                if old[(code, message)]:
                    old[(code, message)] -= 1
                    continue
                target = errors if code.startswith(ERROR_PREFIXES) else warnings
                target.append(f"{path}:{line}: {code} {message}")
            warnings += [f"{path}: lint could not run: {problem}" for problem in problems]
        return errors[:MAX_SHOWN], warnings[:MAX_SHOWN]

    def judge(self, tests: tuple[bool, str] | None,
              now: dict[str, str]) -> tuple[bool, str] | None:
        """The tests' verdict with the lint of the changes: an error fails it (its text
        first, then the test output); the findings are said when they are new to the user."""
        errors, warnings = self.new_findings(now)
        shown = "; ".join(errors + warnings)
        if shown and shown != self._last_said:
            kind = ("errors: they fail like a test" if errors else "warnings")
            self.say(f"lint of the changed files ({kind}): {shown}")
        self._last_said = shown
        if not errors:
            return tests
        text = ("Lint errors in the files you changed (the code cannot run as written):\n"
                + "\n".join(f"- {e}" for e in errors))
        return False, f"{text}\n\n{tests[1]}" if tests else text

    def answer_note(self, now: dict[str, str]) -> str:
        """What the answer says about the lint of the changes ("" when clean)."""
        errors, warnings = self.new_findings(now)
        return f" Lint: {'; '.join(errors + warnings)}." if errors or warnings else ""
