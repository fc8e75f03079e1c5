"""The schema-validated outputs of the three phases (never parsed out of prose)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class PlanStep(BaseModel):
    seq: int
    action: str  # "create", "modify", "test", ...
    file: str
    details: str


class Plan(BaseModel):
    analysis: str
    files_to_create: list[str] = Field(default_factory=list)
    files_to_modify: list[str] = Field(default_factory=list)
    steps: list[PlanStep] = Field(default_factory=list)
    considerations: list[str] = Field(default_factory=list)


class LintResult(BaseModel):
    file: str
    score: float
    notes: str


class ImplementationReport(BaseModel):
    status: Literal["success", "partial", "failed"]
    files_created: list[str] = Field(default_factory=list)
    files_modified: list[str] = Field(default_factory=list)
    linting_results: list[LintResult] = Field(default_factory=list)


class ValidationReport(BaseModel):
    status: Literal["approved", "needs_fixes"]
    changes_summary: str
    quality_score: float
    issues: list[str] = Field(default_factory=list)
    fix_instructions: str = ""


FinalStatus = Literal["approved", "needs_review"]


class MultiAgentResult(BaseModel):
    """Every phase's output and the final status (approved, or needs_review when the fix
    loop ran out of rounds or a phase failed)."""

    status: FinalStatus
    plan: Plan | None = None
    implementations: list[ImplementationReport] = Field(default_factory=list)
    validations: list[ValidationReport] = Field(default_factory=list)
    rounds: int = 0
    notes: list[str] = Field(default_factory=list)
    steps: int = 0
    tokens: int = 0
