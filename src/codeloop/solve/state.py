"""The solve job's state: a TypedDict with every field set when a run starts.

Stages return only the keys they change; list fields grow through their reducers, never by
mutation. Everything in it is plain JSON data, so the checkpointer and the run store can
keep it as is.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from codeloop.solve.tasks import Task

Verdict = Literal["Code is correct", "Code has issues", "Code is untested"]
CORRECT: Verdict = "Code is correct"
HAS_ISSUES: Verdict = "Code has issues"
# The code loads and matches the signature, but no test ran: never "correct".
UNTESTED: Verdict = "Code is untested"
# Verdicts no refinement round can improve: nothing failed to reflect back.
SETTLED: tuple[Verdict, ...] = (CORRECT, UNTESTED)

StageName = Literal["analysis", "planning", "generation", "review", "refinement", "crosscheck",
                    "vote"]
Strategy = Literal["draft", "generation", "resample", "sample", "edge", "crosscheck", "vote"]


class ExecSummary(TypedDict):
    """What running the candidate's tests showed (the task's examples and the test file)."""

    ran: bool  # False: there was no code to run
    passed: int
    failed: int
    total: int
    all_passed: bool
    error: str  # the program did not load, the sandbox failed, ...
    failures: list[str]  # concrete lines: "add(2, 2) returned 5, expected 4"
    signature_ok: bool
    signature_problem: str
    # Code that passes every test, on the edge calls (solve/edges.py): what each returned
    # ("value ...", "raises ...", "timeout") and the crashes told as lines. Empty otherwise.
    edge_outcomes: list[str]
    edge_failures: list[str]


class Review(TypedDict):
    verdict: Verdict
    issues: list[str]  # what makes the code wrong (tests, signature, loading)
    warnings: list[str]  # static findings that never change the verdict (print, globals...)
    notes: list[str]
    untested: str  # why no test ran ("" when tests ran); set with the UNTESTED verdict


class Candidate(TypedDict):
    """One candidate program and what review made of it (kept in the state's `attempts`)."""

    round: int  # 0 = the first generation
    strategy: Strategy
    code: str | None
    passed: int
    total: int
    accepted: bool  # became the current code (it beat the previous best)
    feedback: str
    tokens: int  # prompt + completion tokens spent since the previous candidate


class SolveState(TypedDict):
    # inputs
    task_id: str
    signature: str
    docstring: str
    examples: str
    context: str
    model: str
    show_node_info: bool
    max_refinements: int
    # stage outputs
    analysis: str
    plan: str
    candidate: str | None  # latest code from generation/refinement, awaiting review
    candidate_strategy: Strategy
    code: str  # the best code so far (the function and its helpers, without the context)
    exec_result: ExecSummary
    quality_metrics: dict
    review: Review
    refinement_count: int
    attempts: Annotated[list[Candidate], operator.add]
    # One entry per stage run: jobs.usage.stage_entry (a UsageRecord as plain data).
    usage: Annotated[list[dict[str, Any]], operator.add]


def empty_exec() -> ExecSummary:
    return ExecSummary(ran=False, passed=0, failed=0, total=0, all_passed=False, error="",
                       failures=[], signature_ok=False, signature_problem="",
                       edge_outcomes=[], edge_failures=[])


def initial_state(task: Task, *, model: str, show_node_info: bool = False,
                  max_refinements: int = 3) -> SolveState:
    return SolveState(
        task_id=task.task_id,
        signature=task.signature,
        docstring=task.docstring,
        examples=task.examples,
        context=task.context,
        model=model,
        show_node_info=show_node_info,
        max_refinements=max_refinements,
        analysis="",
        plan="",
        candidate=None,
        candidate_strategy="generation",
        code="",
        exec_result=empty_exec(),
        quality_metrics={},
        review=Review(verdict=HAS_ISSUES, issues=["not reviewed yet"], warnings=[], notes=[],
                      untested=""),
        refinement_count=0,
        attempts=[],
        usage=[],
    )


def task_of(state: SolveState) -> Task:
    return Task(task_id=state["task_id"], signature=state["signature"],
                docstring=state["docstring"], examples=state["examples"],
                context=state["context"])
