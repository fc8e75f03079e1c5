"""The security scan result: bandit and secret-pattern findings, with a blocking rule."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

from codeloop.quality.grades import Severity, severity_rank


class SecurityFinding(BaseModel):
    line: int
    severity: Severity
    confidence: str  # bandit's HIGH / MEDIUM / LOW (UNDEFINED possible)
    test_id: str  # bandit "B602", or a secret rule id such as "SECRET-AWS-KEY"
    message: str  # never holds a full secret: matches are redacted
    source: Literal["bandit", "secrets"]

    def format(self) -> str:
        return (f"line {self.line}: [{self.severity}/{self.confidence}] {self.test_id} "
                f"{self.message} ({self.source})")


class SecurityReport(BaseModel):
    filename: str = "solution.py"
    findings: list[SecurityFinding] = Field(default_factory=list)
    syntax_error: str | None = None  # bandit is skipped then; secret patterns still run
    tool_errors: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]  # serialised with the report
    @property
    def highest_severity(self) -> Severity | None:
        if not self.findings:
            return None
        return max(self.findings, key=lambda f: severity_rank(f.severity)).severity

    def blocking(self, threshold: str = "HIGH") -> bool:
        """True when any finding is at least `threshold` (LOW, MEDIUM or HIGH)."""
        floor = severity_rank(threshold)
        if floor == 0:
            raise ValueError(f"unknown severity threshold {threshold!r}; use LOW, MEDIUM or HIGH")
        return any(severity_rank(f.severity) >= floor for f in self.findings)

    def format(self) -> str:
        highest = self.highest_severity or "none"
        lines = [f"Security: {len(self.findings)} finding(s), highest severity {highest}"]
        if self.syntax_error:
            lines.append(f"  syntax error: {self.syntax_error} (bandit skipped)")
        lines += [f"  {finding.format()}" for finding in self.findings]
        lines += [f"  tool error: {error}" for error in self.tool_errors]
        return "\n".join(lines)
