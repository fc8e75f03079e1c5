"""The lint result: pylint's score and findings by kind, ruff's findings, and its text form."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

LintTool = Literal["pylint", "ruff", "python"]


class LintFinding(BaseModel):
    line: int
    column: int = 0
    code: str  # "E0602", "F821"
    message: str  # pylint: "undefined-variable: Undefined variable 'x'"
    tool: LintTool

    def format(self) -> str:
        return f"line {self.line}: {self.code} {self.message}"


class LintReport(BaseModel):
    filename: str = "solution.py"
    # None only when pylint could not run (see tool_errors); never a made-up number.
    pylint_score: float | None = None
    errors: list[LintFinding] = Field(default_factory=list)  # pylint fatal + error
    warnings: list[LintFinding] = Field(default_factory=list)
    info: list[LintFinding] = Field(default_factory=list)  # convention, refactor, info
    ruff: list[LintFinding] = Field(default_factory=list)
    syntax_error: str | None = None  # "line 3: invalid syntax"
    tool_errors: list[str] = Field(default_factory=list)  # "pylint timed out after 60s"

    @property
    def clean(self) -> bool:
        """Nothing to fix: it compiles, no pylint errors or warnings, no ruff findings."""
        return (self.syntax_error is None and not self.errors and not self.warnings
                and not self.ruff and not self.tool_errors)

    def format(self) -> str:
        """Pylint's view in a fixed shape (every section present), then ruff's if any."""
        score = "n/a" if self.pylint_score is None else f"{_score_text(self.pylint_score)}/10"
        lines = [f"Pylint Score: {score}"]
        for title, findings in (("Errors", self.errors), ("Warnings", self.warnings),
                                ("Info", self.info)):
            lines.append(f"{title}:")
            lines += [f"  {finding.format()}" for finding in findings] or ["  none"]
        if self.ruff:
            lines.append("Ruff:")
            lines += [f"  {finding.format()}" for finding in self.ruff]
        if self.tool_errors:
            lines.append("Tool errors:")
            lines += [f"  {error}" for error in self.tool_errors]
        return "\n".join(lines)


def _score_text(score: float) -> str:
    """8.5 -> "8.5", 10 -> "10.0", 7.25 -> "7.25": pylint's precision without trailing zeros."""
    text = f"{score:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text
