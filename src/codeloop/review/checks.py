"""The reviewer's and the security gate's measurements, none of which runs model code on the
host: the workspace's tests in the sandbox (a throw-away copy with the artifacts laid over
it: nothing comes back), bandit and the secrets scan, ruff, and radon metrics.

Scans and lint are cached by content: a file the refiner did not touch is not scanned again.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from codeloop.review.state import Artifact

MAX_FAILURES_SHOWN = 5
_SUMMARY = re.compile(r"(\d+) (passed|failed|error|errors)\b")
_FAILED_LINE = re.compile(r"^(FAILED|ERROR) (.+)$", re.MULTILINE)
NO_TESTS_COLLECTED = 5  # pytest's exit code when it found no tests


def run_workspace_tests(workspace: str, artifacts: list[Artifact], *, timeout: float,
                        unsafe_no_sandbox: bool = False, extra: dict[str, str] | None = None,
                        only: list[str] | None = None) -> dict[str, Any]:
    """pytest on a throw-away copy of the workspace with the artifacts written over it.
    `extra`: more files laid over the copy (the review's request test, never an artifact);
    `only`: run these test files alone (default: the whole suite).
    {ran, passed, failed, exit_code, failures: [...], output_tail, failure_lines, stdout}."""
    from codeloop.sandbox.runner import run_command

    # --showlocals: the values where it failed (failure_lines keeps those of the raising frame)
    argv = [sys.executable, "-m", "pytest", "-q", "-rfE", "--showlocals", "-p",
            "no:cacheprovider", "--color=no", "-o", "addopts=", *(only or [])]
    files = {a["file_path"]: a["content"] for a in artifacts} | dict(extra or {})
    result = run_command(argv, workspace=Path(workspace), mode="cow", files=files,
                         timeout=timeout, unsafe_no_sandbox=unsafe_no_sandbox,
                         env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    summary = summarise_pytest(result.stdout, result.exit_code, result.limit_hit)
    summary["stdout"] = result.stdout[-20000:]
    return summary


def summarise_pytest(stdout: str, exit_code: int, limit_hit: str | None = None
                     ) -> dict[str, Any]:
    lines = stdout.strip().splitlines()
    counts = {"passed": 0, "failed": 0}
    for number, word in _SUMMARY.findall(lines[-1] if lines else ""):
        counts["passed" if word == "passed" else "failed"] += int(number)
    failures = [m.group(2).strip()[:300] for m in _FAILED_LINE.finditer(stdout)]
    if exit_code not in (0, NO_TESTS_COLLECTED) and not counts["failed"]:
        # a crash, a timeout, a collection error without a summary: still a failure
        counts["failed"] = 1
        why = f"the test run hit its {limit_hit} limit" if limit_hit else \
            f"pytest exited with code {exit_code}"
        failures = failures or [f"{why}: {' / '.join(lines[-3:])[:300]}"]
    return {"ran": exit_code != NO_TESTS_COLLECTED, "passed": counts["passed"],
            "failed": counts["failed"], "exit_code": exit_code,
            "failures": failures[:MAX_FAILURES_SHOWN],
            "output_tail": "\n".join(lines[-15:])[-2000:],
            "failure_lines": failure_lines(stdout)}


_TRACE_LINE = re.compile(r"^(>|E\s|\S+\.py:\d+:)")
_LOCAL_LINE = re.compile(r"^[A-Za-z_]\w*\s+= \S")  # --showlocals: `salt       = '2f76...'`
MAX_FAILURE_LINES = 30
MAX_LOCAL_CHARS = 160


def failure_lines(stdout: str) -> str:
    """What pytest says about its failures, the part a model can act on: the failing source
    line (`>`), the assertion with its values (`E ...`), the local variables of the frame
    that raised (pytest's --showlocals, printed after its `E` lines) and where
    (`path.py:N:`), in order, capped (the summary lines cut the assertion short).

    Why the locals: the 1.5B's pbkdf2_hmac fix for md5_password raised "a bytes-like object
    is required, not 'str'" on a line that encodes the password; three rounds looked at the
    password. `salt = '2f7688ce…'` says which argument is the str."""
    picked: list[str] = []
    after_error = False
    for line in stdout.splitlines():
        if _TRACE_LINE.match(line):
            picked.append(line.rstrip())
            after_error = line.startswith("E")
        elif after_error and _LOCAL_LINE.match(line):
            picked.append(line.rstrip()[:MAX_LOCAL_CHARS])
    return "\n".join(picked[:MAX_FAILURE_LINES])[:2500]


def bidi_findings(path: str, content: str) -> list[dict[str, Any]]:
    """A HIGH finding per line holding bidi controls, in any text file (bandit sees them in
    Python only): text after an override is shown in another order than a compiler reads
    it (Trojan Source), so what a person approves would not be what runs."""
    from codeloop.textsafe import BIDI_OVERRIDES, bidi_controls, marker

    by_line: dict[int, list[str]] = {}
    for line, char in bidi_controls(content):
        by_line.setdefault(line, []).append(char)
    # the overrides and isolates reorder text; a mark alone (RLM in a translation) only
    # nudges neutral characters: a medium finding, which does not block
    return [{"tool": "hidden-text", "line": line, "file_path": path,
             "severity": "high" if BIDI_OVERRIDES.intersection(chars) else "medium",
             "message": f"BIDI bidirectional control character(s) "
                        f"{' '.join(map(marker, chars[:5]))}: "
                        "the line reads differently from what runs; remove them (write "
                        "escapes like \\u202e in string literals if they are meant)"}
            for line, chars in by_line.items()]


@lru_cache(maxsize=256)
def security_findings(path: str, content: str) -> tuple[dict[str, Any], ...]:
    """bandit (Python files), the secrets scan and the bidi-control scan (every file), as the
    contract's finding dicts."""
    from codeloop.quality.secret_patterns import find_secrets
    from codeloop.quality.security import scan_code

    if path.endswith(".py"):
        report = scan_code(content, path.rsplit("/", 1)[-1])
        found = report.findings
        errors = [*report.tool_errors, *([report.syntax_error] if report.syntax_error else [])]
    else:
        found, errors = find_secrets(content), []
    out = [{"tool": f.source, "severity": f.severity.lower(), "line": f.line,
            "file_path": path, "message": f"{f.test_id} {f.message}"} for f in found]
    out += [{"tool": "bandit", "severity": "low", "line": 1, "file_path": path,
             "message": f"not scanned by bandit: {error}"} for error in errors
            if not error.startswith("line ")]  # a syntax error is the reviewer's to report
    return tuple(out + bidi_findings(path, content))


@lru_cache(maxsize=256)
def ruff_findings(path: str, content: str) -> tuple[str, ...]:
    """The quality toolkit's ruff findings (pylint=False: its score is not part of the
    review and costs ~0.5 s a file) as 'path:line: CODE message' lines; code that does not
    parse gives its syntax error, a ruff that cannot run one line saying so."""
    from codeloop.quality.lint import lint_code

    if not path.endswith(".py"):
        return ()
    report = lint_code(content, path.rsplit("/", 1)[-1], pylint=False)
    if report.tool_errors:
        return (f"{path}: ruff could not run ({report.tool_errors[0][:200]})",)
    return tuple(f"{path}:{finding.line}: {finding.code} {finding.message}"
                 for finding in [*report.errors, *report.ruff])


def syntax_error(path: str, content: str) -> str | None:
    from codeloop.quality.syntax import find_syntax_error

    if not path.endswith(".py"):
        return None
    problem = find_syntax_error(content, path)
    return None if problem is None else f"{path}: {problem.describe()}"


def metric_deltas(originals: dict[str, str | None], artifacts: list[Artifact]
                  ) -> dict[str, dict[str, Any]]:
    """Per Python artifact: maintainability index and max complexity, before and after."""
    from codeloop.quality.metrics import compute_metrics

    out: dict[str, dict[str, Any]] = {}
    for artifact in artifacts:
        path = artifact["file_path"]
        if not path.endswith(".py"):
            continue
        after = compute_metrics(artifact["content"])
        before_text = originals.get(path)
        before = compute_metrics(before_text) if before_text is not None else None
        row: dict[str, Any] = {"mi_after": round(after.maintainability_index, 1),
                               "complexity_after": after.max_complexity,
                               "lloc_after": after.lloc}
        if before is not None:
            row.update(mi_before=round(before.maintainability_index, 1),
                       complexity_before=before.max_complexity, lloc_before=before.lloc,
                       mi_delta=round(after.maintainability_index
                                      - before.maintainability_index, 1),
                       complexity_delta=after.max_complexity - before.max_complexity)
        out[path] = row
    return out
