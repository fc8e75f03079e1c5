"""Security scan of model-written code: bandit (on a temp copy) plus secret patterns."""

from __future__ import annotations

import re
from pathlib import Path

from codeloop.quality.grades import SEVERITY_ORDER, Severity
from codeloop.quality.secret_patterns import find_secrets
from codeloop.quality.security_report import SecurityFinding, SecurityReport
from codeloop.quality.syntax import find_syntax_error
from codeloop.quality.tool_runner import (
    DEFAULT_TIMEOUT_S,
    StagedFile,
    ToolRunError,
    run_json_tool,
    staged_copy,
)

__all__ = ["SecurityFinding", "SecurityReport", "scan_code", "scan_path"]

# B101 (assert_used) is skipped: asserts are how solutions and their tests check invariants,
# and flagging every one buries the findings that matter.
BANDIT_SKIPPED = ("B101",)
_ECHOES_SECRET = frozenset({"B105", "B106", "B107"})


def scan_code(code: str, filename: str = "solution.py",
              timeout_s: float = DEFAULT_TIMEOUT_S) -> SecurityReport:
    """Scan `code` as if it were the file `filename`. Never raises: code that does not compile
    gets `syntax_error` and only the secret patterns (which need no parse); a bandit failure
    is named in `tool_errors`."""
    report = SecurityReport(filename=filename, findings=find_secrets(code))
    problem = find_syntax_error(code, filename)
    if problem is not None:
        report.syntax_error = problem.describe()
        return report
    with staged_copy(code, filename) as staged:
        try:
            report.findings = sorted(report.findings + _run_bandit(staged, timeout_s),
                                     key=lambda f: f.line)
        except ToolRunError as exc:
            report.tool_errors.append(str(exc))
    return report


def scan_path(path: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> SecurityReport:
    """Scan the file at `path` (through a temp copy). Raises FileNotFoundError /
    IsADirectoryError for a missing path; undecodable bytes are scanned as replaced text and
    reported as a syntax error."""
    path = Path(path)
    raw = path.read_bytes()
    try:
        code = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        report = SecurityReport(filename=path.name,
                                findings=find_secrets(raw.decode("utf-8", errors="replace")))
        line = raw.count(b"\n", 0, exc.start) + 1
        report.syntax_error = f"line {line}: not valid UTF-8"
        return report
    return scan_code(code, path.name, timeout_s)


def _run_bandit(staged: StagedFile, timeout_s: float) -> list[SecurityFinding]:
    args = ["-q", "-f", "json", "-s", ",".join(BANDIT_SKIPPED), staged.path.name]
    # exit 1 means "issues found", not failure
    payload = run_json_tool("bandit", args, staged, timeout_s, ok_exits=(0, 1))
    if payload.get("errors"):
        raise ToolRunError(f"bandit could not scan: {payload['errors'][0].get('reason', '?')}")
    return [
        SecurityFinding(
            line=item.get("line_number") or 1,
            # bandit can say UNDEFINED; it is then reported as LOW rather than dropped
            severity=_known_severity(item.get("issue_severity", "")),
            confidence=str(item.get("issue_confidence", "UNDEFINED")),
            test_id=item.get("test_id", "B???"),
            message=_redacted_message(item),
            source="bandit",
        )
        for item in payload.get("results", [])
    ]


def _redacted_message(item: dict) -> str:
    """bandit's text, minus the quoted value of a hard-coded password (B105-B107 echo it),
    so a secret never reaches the run store or a prompt."""
    text = str(item.get("issue_text", ""))
    if item.get("test_id") in _ECHOES_SECRET:
        text = re.sub(r"'(.{4})[^']*'", r"'\1…'", text)
    return f"{item.get('test_name', '')}: {text}"


def _known_severity(severity: str) -> Severity:
    severity = severity.upper()
    return severity if severity in SEVERITY_ORDER else "LOW"  # type: ignore[return-value]
