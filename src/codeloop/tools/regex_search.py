"""Compile a model-supplied search pattern so that matching it costs linear time.

Python's `re` backtracks: `(a+)+$` on a long line of a's runs for hours, and a model wrote
such a pattern. RE2 (google-re2) has no backtracking, so every search is linear in the text;
what it gives up (backreferences, lookaround) gets a clear error instead.
"""

from __future__ import annotations

import re

import re2

from codeloop.tools.base import ToolError

MAX_PATTERN_CHARS = 1_000
# RE2's own cap on the compiled program: a pattern like `(x{1000}){1000}` fails to compile
# instead of taking the host's memory.
MAX_PROGRAM_BYTES = 8 << 20


def compile_search_pattern(pattern: str, case_sensitive: bool):
    """An RE2 regex for `pattern`. Text that is not a regular expression at all (a model
    often passes code like "foo(") is searched literally; a valid Python regex that RE2
    cannot run raises ToolError saying why."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(f"the pattern is {len(pattern)} characters long; the limit is "
                        f"{MAX_PATTERN_CHARS}. Search for a shorter, distinctive piece.")
    options = _options(case_sensitive)
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        problem = _message(exc)
    if not _is_python_regex(pattern):
        options.literal = True
        return re2.compile(pattern, options)
    raise ToolError(
        f"grep_search cannot use the pattern {pattern[:120]!r}: {problem}. It runs RE2 "
        "regular expressions (linear time), which have no backreferences (\\1) and no "
        "lookahead or lookbehind ((?=...), (?!...), (?<=...)); use a simpler pattern or "
        "plain text.")


def _options(case_sensitive: bool):
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False  # the error goes to the model, not to the host's stderr
    options.max_mem = MAX_PROGRAM_BYTES
    return options


def _is_python_regex(pattern: str) -> bool:
    # Compiling never matches anything, so Python's re is safe here: it only tells a
    # syntax slip (search literally) from a feature RE2 lacks (say so).
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _message(exc: Exception) -> str:
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return str(text)
