"""Lint model-written code with ruff and pylint (score out of 10), on a temp copy.

The agent uses this report to drive fixes, so the checks favour signal over noise:
- pylint: the missing-docstring checks (C0114/C0115/C0116) are off, since small models chase
  them instead of real bugs; import-error (E0401) is off because the file is linted alone,
  away from its sibling modules, so every local import would look broken (the sandboxed test
  run catches imports that are really missing); too-few-public-methods (R0903) is off since
  small data-holding classes are fine.
- ruff: its default rules (E4, E7, E9, F) plus flake8-bugbear (B), ignoring any config file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from codeloop.quality.lint_report import LintFinding, LintReport
from codeloop.quality.syntax import find_syntax_error
from codeloop.quality.tool_runner import (
    DEFAULT_TIMEOUT_S,
    StagedFile,
    ToolRunError,
    last_line,
    run_json_tool,
    run_tool,
    staged_copy,
)

__all__ = ["LintFinding", "LintReport", "lint_code", "lint_path"]

PYLINT_DISABLED = ("C0114", "C0115", "C0116", "E0401", "R0903")
RUFF_RULES = ("E4", "E7", "E9", "F", "B")

# pylint message type -> report section
_PYLINT_SECTIONS = {
    "fatal": "errors", "error": "errors", "warning": "warnings",
    "convention": "info", "refactor": "info", "info": "info",
}


def lint_code(code: str, filename: str = "solution.py",
              timeout_s: float = DEFAULT_TIMEOUT_S, *, pylint: bool = True) -> LintReport:
    """Lint `code` as if it were the file `filename`. Never raises: code that does not
    compile gives `syntax_error` (and a 0 score, as pylint gives); a tool that cannot run is
    named in `tool_errors`. `pylint=False`: ruff alone (~20 ms a file instead of ~0.5 s),
    no score."""
    problem = find_syntax_error(code, filename)
    if problem is not None:
        finding = LintFinding(line=problem.line, column=problem.column, code="E0001",
                              message=f"syntax-error: {problem.message}", tool="python")
        return LintReport(filename=filename, pylint_score=0.0, errors=[finding],
                          syntax_error=problem.describe())

    report = LintReport(filename=filename)
    with staged_copy(code, filename) as staged:
        try:
            report.ruff = _run_ruff(staged, timeout_s)
        except ToolRunError as exc:
            report.tool_errors.append(str(exc))
        if not pylint:
            return report
        try:
            score, sections = _run_pylint(staged, timeout_s)
        except ToolRunError as exc:
            report.tool_errors.append(str(exc))
        else:
            report.pylint_score = score
            report.errors, report.warnings, report.info = (
                sections["errors"], sections["warnings"], sections["info"])
    return report


def lint_path(path: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> LintReport:
    """Lint the file at `path` (through a temp copy). Raises FileNotFoundError /
    IsADirectoryError for a missing path; undecodable bytes are reported as a syntax error."""
    path = Path(path)
    try:
        code = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes().count(b"\n", 0, exc.start) + 1
        return LintReport(
            filename=path.name, pylint_score=0.0, syntax_error=f"line {line}: not valid UTF-8",
            errors=[LintFinding(line=line, code="E0001", message="syntax-error: not valid UTF-8",
                                tool="python")],
        )
    return lint_code(code, path.name, timeout_s)


def _run_ruff(staged: StagedFile, timeout_s: float) -> list[LintFinding]:
    args = ["check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json",
            "--select", ",".join(RUFF_RULES), staged.path.name]
    items = run_json_tool("ruff", args, staged, timeout_s)
    findings = [
        LintFinding(
            line=(item.get("location") or {}).get("row") or 1,
            column=(item.get("location") or {}).get("column") or 0,
            code=item.get("code") or "ruff",
            message=item.get("message", ""),
            tool="ruff",
        )
        for item in items
    ]
    return sorted(findings, key=lambda f: (f.line, f.column))


def _run_pylint(staged: StagedFile,
                timeout_s: float) -> tuple[float, dict[str, list[LintFinding]]]:
    args = [
        f"--rcfile={os.devnull}",  # never read a pylintrc: its init-hook/evaluation run code
        "--persistent=n", "--reports=n", "--score=y", "--jobs=1",
        "--unsafe-load-any-extension=n", "--output-format=json2",
        f"--disable={','.join(PYLINT_DISABLED)}",
        staged.path.name,
    ]
    run = run_tool("pylint", args, staged, timeout_s)
    if run.returncode & 32:  # pylint's "usage error" bit: bad options, nothing linted
        raise ToolRunError(f"pylint usage error: {last_line(run.stderr or run.stdout)}")
    try:
        payload = json.loads(run.stdout)
        score = float(payload["statistics"]["score"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ToolRunError(f"pylint gave no score: {last_line(run.stderr or run.stdout)}") from exc

    sections: dict[str, list[LintFinding]] = {"errors": [], "warnings": [], "info": []}
    for message in payload.get("messages", []):
        section = _PYLINT_SECTIONS.get(message.get("type", ""), "info")
        sections[section].append(LintFinding(
            line=message.get("line") or 1,
            column=(message.get("column") or 0) + 1,  # pylint counts from 0; ruff from 1
            code=message.get("messageId", ""),
            message=f"{message.get('symbol', '')}: {message.get('message', '')}",
            tool="pylint",
        ))
    for findings in sections.values():
        findings.sort(key=lambda f: (f.line, f.column))
    return round(score, 2), sections
