"""Named grades for the numbers the quality tools produce, and severity ordering."""

from __future__ import annotations

from typing import Literal

MiGrade = Literal["Excellent", "Good", "Moderate", "Poor"]
ComplexityGrade = Literal["Simple", "Moderate", "Complex"]
Severity = Literal["LOW", "MEDIUM", "HIGH"]

SEVERITY_ORDER: dict[str, int] = {"LOW": 1, "MEDIUM": 2, "HIGH": 3}


def mi_grade(maintainability_index: float) -> MiGrade:
    """Grade a maintainability index (0-100): >=80 Excellent, >=60 Good, >=40 Moderate."""
    if maintainability_index >= 80:
        return "Excellent"
    if maintainability_index >= 60:
        return "Good"
    if maintainability_index >= 40:
        return "Moderate"
    return "Poor"


def complexity_grade(complexity: int) -> ComplexityGrade:
    """Grade a cyclomatic complexity: <=5 Simple, <=10 Moderate, >10 Complex."""
    if complexity <= 5:
        return "Simple"
    if complexity <= 10:
        return "Moderate"
    return "Complex"


def severity_rank(severity: str) -> int:
    """Order severities; unknown values rank below LOW so they never block."""
    return SEVERITY_ORDER.get(severity.upper(), 0)
