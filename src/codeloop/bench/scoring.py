"""Scoring a program against a problem's hidden tests, in codeloop's sandbox.

HumanEval: the program, then the problem's `check(candidate)` source, then
`check(entry_point)`, as the official harness builds it. MBPP: the program, the test
imports, then every test assert.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from codeloop.bench.datasets import Problem

Outcome = Literal["passed", "wrong_answer", "exception", "timeout", "no_code",
                  "llm_error", "strategy_error", "harness_error"]
REASON_CHARS = 300


@dataclass(frozen=True)
class Score:
    passed: bool
    outcome: Outcome
    reason: str  # one line for the report: "passed", the failed assertion, the error
    seconds: float


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def _from_report(report, seconds: float) -> Score:
    if report.harness_error:
        # codeloop could not test the program: not the program's failure.
        return Score(False, "harness_error", _one_line(report.harness_error), seconds)
    if report.all_passed:
        return Score(True, "passed", "passed", seconds)
    if report.timed_out:
        return Score(False, "timeout", "timed out", seconds)
    bad = [c for c in report.cases if c.kind != "pass"]
    kinds = {c.kind for c in bad}
    message = next((c.message for c in bad if c.message), "") or report.error or \
        report.feedback()
    if report.error and not bad:
        return Score(False, "exception", _one_line(report.error), seconds)
    outcome: Outcome = "wrong_answer" if kinds <= {"fail"} else "exception"
    return Score(False, outcome, _one_line(message) or outcome, seconds)


def score(problem: Problem, program: str, *, timeout: float = 10.0) -> Score:
    """Run the hidden tests on `program` in the sandbox."""
    from codeloop.sandbox.testrun import run_asserts, run_check

    if not program.strip():
        return Score(False, "no_code", "no code to run", 0.0)
    started = time.perf_counter()
    if problem.dataset == "humaneval":
        report = run_check(program, problem.check_source, problem.entry_point, timeout=timeout)
    else:
        imports = "\n".join(problem.test_imports)
        code = f"{program.rstrip()}\n\n{imports}\n" if imports else program
        report = run_asserts(code, list(problem.asserts), timeout=timeout,
                             entry_point=problem.entry_point)
    return _from_report(report, time.perf_counter() - started)
