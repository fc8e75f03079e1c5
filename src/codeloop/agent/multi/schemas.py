"""The schema-validated outputs of the three phases (never parsed out of prose).

Every string and list is bounded. Why: under constrained decoding a small model at
temperature 0 can repeat itself inside an open string or list until max_tokens; the JSON is
then cut off, invalid, and asked for again (measured with the 1.5B planner: three plans of
1,024 tokens each, none valid). With the bounds the grammar closes them, and the largest
possible plan fits in well under 1,024 tokens.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

Path = Annotated[str, Field(max_length=80)]
Sentence = Annotated[str, Field(max_length=160)]
MAX_FILES = 6


class PlanStep(BaseModel):
    seq: int
    action: str = Field(max_length=40)  # "create", "modify", "test", ...
    file: Path
    details: str = Field(max_length=240)


class Plan(BaseModel):
    analysis: str = Field(max_length=400)
    files_to_create: list[Path] = Field(default_factory=list, max_length=MAX_FILES)
    files_to_modify: list[Path] = Field(default_factory=list, max_length=MAX_FILES)
    steps: list[PlanStep] = Field(default_factory=list, max_length=6)
    considerations: list[Sentence] = Field(default_factory=list, max_length=4)


class LintResult(BaseModel):
    file: Path
    score: float
    notes: Sentence


class ImplementationReport(BaseModel):
    status: Literal["success", "partial", "failed"]
    files_created: list[Path] = Field(default_factory=list, max_length=MAX_FILES)
    files_modified: list[Path] = Field(default_factory=list, max_length=MAX_FILES)
    linting_results: list[LintResult] = Field(default_factory=list, max_length=MAX_FILES)


class ValidationReport(BaseModel):
    status: Literal["approved", "needs_fixes"]
    changes_summary: str = Field(max_length=400)
    quality_score: float
    issues: list[Sentence] = Field(default_factory=list, max_length=6)
    fix_instructions: str = Field(default="", max_length=400)


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
