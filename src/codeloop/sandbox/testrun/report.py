"""Per-test results of running candidate code, and the short feedback text for refiners."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from codeloop.sandbox.types import SandboxResult

CaseKind = Literal["pass", "fail", "error", "timeout"]
MAX_MESSAGE = 300


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    text = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class CaseResult:
    name: str  # the assert's source, "check(f)", or the pytest node id
    kind: CaseKind
    message: str = ""  # e.g. "add(2, 2) returned 5, expected 4", "ZeroDivisionError: ..."
    line: int | None = None  # line in the candidate code (or the check) where it went wrong

    @property
    def passed(self) -> bool:
        return self.kind == "pass"

    def describe(self) -> str:
        if self.passed:
            return f"PASS {self.name}"
        where = f" (line {self.line})" if self.line else ""
        label = {"fail": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}[self.kind]
        return f"{label} {clip(self.name, 120)}: {clip(self.message)}{where}"


@dataclass
class TestReport:
    cases: list[CaseResult] = field(default_factory=list)
    error: str | None = None  # the code could not even be loaded, or the run broke down
    sandbox: SandboxResult | None = None
    # codeloop could not test the code at all (pytest missing, the sandbox or the harness
    # failed): not the code's fault, so no refiner should be asked to fix it.
    harness_error: str | None = None

    __test__ = False  # not a pytest test class, despite the name

    @property
    def passed(self) -> int:
        return sum(case.passed for case in self.cases)

    @property
    def failed(self) -> int:
        return len(self.cases) - self.passed

    @property
    def all_passed(self) -> bool:
        return (self.error is None and self.harness_error is None and bool(self.cases)
                and self.failed == 0)

    @property
    def timed_out(self) -> bool:
        hit = self.sandbox is not None and self.sandbox.limit_hit == "timeout"
        return hit or any(case.kind == "timeout" for case in self.cases)

    def feedback(self, max_items: int = 5) -> str:
        """A few lines for a refiner prompt: what failed and how, most useful first."""
        if self.harness_error:
            return f"The tests could not be run (a codeloop problem): {clip(self.harness_error)}"
        if self.error:
            return f"The code could not be run: {clip(self.error)}"
        if self.all_passed:
            return f"All {self.passed} tests passed."
        bad = [case for case in self.cases if not case.passed]
        lines = [f"{self.failed} of {len(self.cases)} tests failed:"]
        lines += [f"- {case.describe()}" for case in bad[:max_items]]
        if len(bad) > max_items:
            lines.append(f"- ... and {len(bad) - max_items} more")
        return "\n".join(lines)
