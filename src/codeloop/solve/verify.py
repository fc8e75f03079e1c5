"""Stage 4, review: run the candidate in the sandbox, check its signature and static
issues, measure its quality, and give the verdict.

The stage is named "review" in the graph, events, results and output; the module is
verify.py so it is not taken for the `review` job (the refinement cycle for code changes).

The verdict is functional correctness only: the program loads, the signature matches and
every test passes. Quality metrics and static findings never change it, and no model
opinion can overrule a failing test (the review asks no model at all).

Review also keeps the best code: a candidate replaces the current code only when it does
strictly better on the tests, so a refinement can never make the result worse.
"""

from __future__ import annotations

from codeloop.events import TestResult
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.solve.checks import static_findings
from codeloop.solve.edges import EDGE_TIMEOUT, crash_lines, keeps_values
from codeloop.solve.execute import run_calls, run_tests
from codeloop.solve.extract import check_signature, empty_function, join_program
from codeloop.solve.mismatch import with_remark
from codeloop.solve.probes import outcome
from codeloop.solve.stage import SolveContext
from codeloop.solve.state import (
    CORRECT,
    HAS_ISSUES,
    UNTESTED,
    Candidate,
    ExecSummary,
    Review,
    SolveState,
    empty_exec,
)
from codeloop.solve.untested import dropped_warning, untested_reason

NO_CODE = "the reply held no usable Python code defining the function"
EMPTY = "has no implementation: its body is only a docstring, `pass` or `...`"
EDGE_WARNING = ("passes every test but crashes on inputs made from the examples (empty or "
                "one-item arguments; the description may exclude them)")
MAX_FAILURE_LINES = 1  # what was measured; more lines cost prefill and distract a small model


def execute_candidate(code: str | None, ctx: SolveContext) -> ExecSummary:
    if code is None:
        summary = empty_exec()
        summary["error"] = f"{NO_CODE} `{ctx.task.entry_point}` (keep exactly this name)"
        return summary
    check = check_signature(code, ctx.task.signature_node(), names=ctx.task.parameter_names)
    summary = run_tests(join_program(ctx.task.context, code), ctx.assertions, ctx.test_source,
                        timeout=ctx.sandbox_timeout, unsafe_no_sandbox=ctx.unsafe_no_sandbox,
                        entry_point=ctx.task.entry_point)
    summary["signature_ok"] = check.ok
    summary["signature_problem"] = check.problem
    if not check.ok:
        summary["all_passed"] = False
    if not summary["all_passed"] and empty_function(code, ctx.task.entry_point):
        # Its failures would all read "returned None": say what is missing instead.
        summary["error"] = f"the function `{ctx.task.entry_point}` {EMPTY}"
        summary["failures"] = []
    if summary["all_passed"] and ctx.edge_calls:
        run_edges(code, summary, ctx)
    return summary


def run_edges(code: str, summary: ExecSummary, ctx: SolveContext) -> None:
    """Code that passes every test, on the edge calls (solve/edges.py)."""
    results = run_calls(join_program(ctx.task.context, code), ctx.edge_calls,
                        timeout=EDGE_TIMEOUT, entry_point=ctx.task.entry_point,
                        unsafe_no_sandbox=ctx.unsafe_no_sandbox)
    if results is not None:
        summary["edge_outcomes"] = [outcome(kind, message) for kind, message in results]
        summary["edge_failures"] = crash_lines(ctx.edge_calls, results, code)


def score(summary: ExecSummary) -> tuple[int, int, int, int, int]:
    """Orders candidates: tests passed first, then loading, then the signature, then the
    fewest crashes on edge calls."""
    return (int(summary["ran"]), summary["passed"], int(not summary["error"]),
            int(summary["signature_ok"]), -len(summary.get("edge_failures", [])))


def better(new: ExecSummary, old: ExecSummary) -> bool:
    """Does the new candidate replace the current code? It must score higher; between two
    that pass every test, the one with fewer crashes must also return what the current
    code returned wherever that returned a value (a fix of a crash, nothing else)."""
    if score(new) <= score(old):
        return False
    if new["all_passed"] and old["all_passed"] and score(new)[:4] == score(old)[:4]:
        return keeps_values(old.get("edge_outcomes", []), new.get("edge_outcomes", []))
    return True


def judge(summary: ExecSummary) -> Review:
    issues: list[str] = []
    if summary["error"]:
        issues.append(summary["error"])
    # Code that does not parse fails to load too: its error already says so, once.
    unparsed = summary["error"] and summary["signature_problem"].startswith("the code does not parse")
    if summary["ran"] and not summary["signature_ok"] and not unparsed:
        issues.append(f"signature mismatch: {summary['signature_problem']}")
    issues += summary["failures"]
    if summary["failures"] and summary["failed"] > len(summary["failures"]):
        issues.append(f"... {summary['failed'] - len(summary['failures'])} more failing case(s)")
    correct = summary["ran"] and summary["all_passed"] and not issues
    tested = f"{summary['passed']}/{summary['total']} tests passed" if summary["total"] \
        else "no tests to run"
    return Review(verdict=CORRECT if correct else HAS_ISSUES, issues=issues, warnings=[],
                  notes=[tested], untested="")


def feedback_text(summary: ExecSummary) -> str:
    """What a candidate's record says of it: its failures, or that every test passed (and
    then its crashes on edge calls, one a line)."""
    crashes = [f"edge: {line}" for line in summary.get("edge_failures", [])]
    return "\n".join(judge(summary)["issues"]) or "\n".join(["all tests passed", *crashes])


def failure_note(state: SolveState) -> str:
    """The best code's first failing check(s), concrete cases first ("f(2) returned 5,
    expected 4", with what differs named: solve/mismatch.py); a load error or a signature
    problem when no case ran; for code that passes every test, its crash on an edge call."""
    summary = state["exec_result"]
    if summary["all_passed"] and summary.get("edge_failures"):
        lines = summary["edge_failures"]
    else:
        lines = summary["failures"] or feedback_text(summary).splitlines()
    return "; ".join(with_remark(line) for line in lines[:MAX_FAILURE_LINES])


def tokens_since_last_review(usage: list[dict]) -> int:
    """What the stages since the previous review spent: this candidate's cost."""
    spent = 0
    for entry in reversed(usage):
        if entry["stage"] == "review":
            break
        spent += entry.get("prompt_tokens", 0) + entry.get("completion_tokens", 0)
    return spent


def review(state: SolveState, ctx: SolveContext, usage: UsageRecord) -> StageOutput:
    candidate = state["candidate"]
    summary = execute_candidate(candidate, ctx)
    ctx.bus.emit(TestResult(passed=summary["passed"], failed=summary["failed"],
                            errors=int(bool(summary["error"])), details=summary["failures"]))
    first = not state["attempts"]
    accepted = first or better(summary, state["exec_result"])
    attempt = Candidate(round=state["refinement_count"], strategy=state["candidate_strategy"],
                        code=candidate, passed=summary["passed"], total=summary["total"],
                        accepted=accepted, feedback=feedback_text(summary),
                        tokens=tokens_since_last_review(state["usage"]))
    if not accepted:
        kept = state["review"]
        note = (f"round {state['refinement_count']}: the new candidate passed "
                f"{summary['passed']}/{summary['total']}; kept the previous code")
        notes = [*kept["notes"], note]
        shown = (f"candidate rejected ({summary['passed']}/{summary['total']} passed):\n"
                 f"{attempt['feedback']}\nkeeping the previous code: {kept['verdict']}")
        return StageOutput({"attempts": [attempt], "review": {**kept, "notes": notes}},
                           shown, ok=kept["verdict"] == CORRECT)
    update = {**assess(candidate or "", summary, ctx), "attempts": [attempt]}
    return StageOutput(update, show(update["review"]), ok=update["review"]["verdict"] == CORRECT)


def assess(code: str, summary: ExecSummary, ctx: SolveContext) -> dict:
    """The state's update for code that becomes the current code: its verdict, static
    warnings and quality metrics."""
    from codeloop.quality.metrics import compute_metrics

    verdict = judge(summary)
    if code:
        verdict["warnings"] = static_findings(code, ctx.task.context)
    if verdict["verdict"] == CORRECT and not summary["total"]:
        # It loads and its signature matches, but no test ran: that is not "correct".
        verdict["verdict"] = UNTESTED
        verdict["untested"] = untested_reason(ctx.task, ctx.test_source is not None)
    elif dropped := dropped_warning(ctx.task):
        verdict["warnings"].insert(0, dropped)
    if summary.get("edge_failures"):
        verdict["warnings"].insert(0, f"{EDGE_WARNING}: {'; '.join(summary['edge_failures'])}")
    metrics = compute_metrics(join_program(ctx.task.context, code)).model_dump() if code else {}
    return {"code": code, "exec_result": summary, "review": verdict, "quality_metrics": metrics}


def show(verdict: Review) -> str:
    lines = [verdict["verdict"], *verdict["notes"]]
    if verdict.get("untested"):
        lines.append(f"- untested: {verdict['untested']}")
    lines += [f"- {issue}" for issue in verdict["issues"]]
    lines += [f"- warning: {w}" for w in verdict["warnings"]]
    return "\n".join(lines)
