"""reviewer: the facts first (the workspace's tests against the artifacts in the sandbox,
ruff, the maintainability metrics with before/after deltas), then the model's
{approved, issues, suggestions}. Rules the model cannot override: a HIGH security finding
(bandit, secrets, or a target path the gate's path guard refused in this round), a MEDIUM
one on a line the change wrote (written_findings.py), a failing
test or code that does not compile or import (every changed module, in the sandbox, even
when no test imports it) is never approved, nor an unchanged file under a change
request.

A pass hands the pending diffs to human_approval; a failure hands the concrete problems to
the refiner (`last_error`), unless the loop is spent: MAX_ITERATIONS reviews in a round or
MAX_REFINEMENT_ITERATIONS refinements in the run end it as failed."""

from __future__ import annotations

from typing import Any

from codeloop.events import TestResult
from codeloop.jobs.request_files import is_test_path
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import InvalidStructuredOutput, LLMError, Message
from codeloop.review.checks import metric_deltas, ruff_findings, run_workspace_tests, syntax_error
from codeloop.review.context import ReviewContext, prompt
from codeloop.review.debug import DebugTrail
from codeloop.review.diffs import pending_changes
from codeloop.review.import_check import import_problems
from codeloop.review.objection_test import check_objections
from codeloop.review.objections import beside_the_change
from codeloop.review.request_test import overlay, write_request_test
from codeloop.review.request_test_conflict import against_the_spec
from codeloop.review.request_test_unseen import invented_demands, unseen_change
from codeloop.review.state import (
    MAX_ITERATIONS,
    MAX_REFINEMENT_ITERATIONS,
    RESET,
    ReviewState,
)
from codeloop.review.verdict import RETRY_NOTE, tolerant_verdict
from codeloop.review.written_findings import is_noise, written_line_problems

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "issues": {"type": "array", "items": {"type": "string"}},
        "suggestions": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["approved", "issues", "suggestions"],
}
MAX_FILE_CHARS = 6000
MAX_ITEMS = 8


def _tests(state: ReviewState, ctx: ReviewContext, trail: DebugTrail) -> dict[str, Any]:
    extra = overlay(state)
    if not state["test_files"] and not extra:
        return {"ran": False, "passed": 0, "failed": 0, "failures": []}
    result = run_workspace_tests(state["workspace"], state["artifacts"],
                                 timeout=ctx.sandbox_timeout,
                                 unsafe_no_sandbox=ctx.unsafe_no_sandbox, extra=extra)
    trail.log("tool_call", f"pytest in the sandbox: {result['passed']} passed, "
                           f"{result['failed']} failed", {"failures": result["failures"]})
    ctx.bus.emit(TestResult(passed=result["passed"], failed=result["failed"],
                            details=result["failures"]))
    return result


def _imports(state: ReviewState, ctx: ReviewContext, trail: DebugTrail) -> list[str]:
    """The changed Python modules that compile but do not import, in the sandbox (a module
    no test imports is checked too)."""
    paths = [a["file_path"] for a in state["artifacts"]
             if a["file_path"].endswith(".py")
             and state["originals"].get(a["file_path"]) != a["content"]
             and not syntax_error(a["file_path"], a["content"])]
    if not paths:
        return []
    problems = import_problems(state["workspace"], state["artifacts"], paths,
                               timeout=ctx.sandbox_timeout,
                               unsafe_no_sandbox=ctx.unsafe_no_sandbox)
    trail.log("tool_call", f"import check in the sandbox: {len(paths)} module(s), "
                           f"{len(problems)} failed", {"problems": problems})
    return problems


def _unchanged(state: ReviewState) -> bool:
    return all(state["originals"].get(a["file_path"]) == a["content"]
               for a in state["artifacts"])


def _contents(state: ReviewState) -> dict[str, str]:
    return {a["file_path"]: a["content"] for a in state["artifacts"]}


def _has_change(state: ReviewState) -> bool:
    """Something for a person to approve: a file differs from what the workspace holds."""
    return not _unchanged(state)


def _flagged(state: ReviewState) -> list[str]:
    """The security gate's bandit findings below HIGH in the code under review (HIGH ones
    block already), for the refiner's first round: a request about the problem a finding
    names is met by removing that pattern."""
    return [f"the security gate flags {f['file_path']} line {f['line']} "
            f"({f['severity'].upper()}): {f['message']}"
            for f in state["security_findings"][:MAX_ITEMS]
            if f.get("tool") == "bandit" and f["severity"] != "high"
            and not is_test_path(f["file_path"]) and not is_noise(f)]


def _request_verified(state: ReviewState, tests: dict[str, Any]) -> bool:
    """The run has a request test (it failed on the code under review) and every test,
    it among them, passes now."""
    found = state.get("request_test") or {}
    return bool(found.get("reproduced")) and tests["ran"] and not tests["failed"]


def rule_problems(state: ReviewState, tests: dict[str, Any],
                  imports: list[str] | None = None) -> list[str]:
    """What blocks approval whatever the model says. `imports`: the changed modules that do
    not import (import_check.py)."""
    problems = [f"HIGH path-guard finding: {f['message']}; that file was dropped and is never "
                "written: leave it out, or put its content in a file inside the workspace"
                for f in state.get("gate_refusals") or []]  # (.get: checkpoints from before)
    problems += [f"HIGH security finding in {f['file_path']} line {f['line']}: {f['message']}"
                 for f in state["security_findings"] if f["severity"] == "high"]
    for artifact in state["artifacts"]:
        path, before = artifact["file_path"], state["originals"].get(artifact["file_path"])
        if before != artifact["content"]:
            problems += written_line_problems(
                [f for f in state["security_findings"] if f["file_path"] == path], before,
                artifact["content"])
    problems += [f"failing test {failure}" for failure in tests["failures"]]
    if tests["failed"] and not tests["failures"]:
        problems.append(f"{tests['failed']} test(s) fail")
    problems += [e for e in (syntax_error(a["file_path"], a["content"])
                             for a in state["artifacts"]) if e]
    problems += list(imports or [])
    if state["request"] and _unchanged(state):
        problems.append(f"the change request is not implemented yet: {state['request']}")
    return problems


def _ask_model(state, ctx, usage, trail, tests, lint) -> tuple[bool, list[str], list[str]]:
    spec = prompt("reviewer")
    files = [{"path": a["file_path"], "content": a["content"][:MAX_FILE_CHARS],
              "language": a["language"]} for a in state["artifacts"]]
    findings = "; ".join(f"{f['severity'].upper()} {f['file_path']}:{f['line']} "
                         f"{f['message']}" for f in state["security_findings"][:MAX_ITEMS])
    test_text = ("no tests in the workspace" if not tests["ran"] else
                 f"{tests['passed']} passed, {tests['failed']} failed"
                 + "".join(f"\n  {f}" for f in tests["failures"]))
    messages = spec.messages(request=state["request"], files=files, git_diff=state["git_diff"],
                             tests=test_text, findings=findings, lint="; ".join(lint[:MAX_ITEMS]))
    try:
        data = ctx.ask_logged(usage, trail, "reviewer", spec, messages, VERDICT_SCHEMA).data
    except InvalidStructuredOutput as exc:
        usage.calls += 1  # what the failed attempts cost still counts
        usage.prompt_tokens += exc.usage.prompt_tokens
        usage.completion_tokens += exc.usage.completion_tokens
        trail.log("error", f"the review model gave no valid verdict: {exc}", usage=exc.usage)
        data = _plain_retry(ctx, usage, trail, spec, messages)
        if data is None:
            return False, [("the review model gave no readable verdict twice: the change is "
                           "not approved; review it again")], []
    issues = [str(i) for i in data.get("issues") or [] if str(i).strip()][:MAX_ITEMS]
    suggestions = [str(s) for s in data.get("suggestions") or [] if str(s).strip()][:MAX_ITEMS]
    return bool(data.get("approved")), issues, suggestions


def _plain_retry(ctx, usage, trail, spec, messages) -> dict[str, Any] | None:
    """One plain call asking for the verdict object alone, read tolerantly (verdict.py)."""
    retry = [*messages[:-1], Message("user", f"{messages[-1].content}\n\n{RETRY_NOTE}")]
    try:
        reply = ctx.ask_logged(usage, trail, "reviewer", spec, retry)
    except LLMError as exc:
        trail.log("error", f"the review model's retry failed: {exc}")
        return None
    data = tolerant_verdict(reply.text)
    if data is None:
        trail.log("error", "the retry's verdict could not be read either")
    return data


def _spec(state: ReviewState) -> dict[str, str]:
    """The workspace's tests that import the files under review."""
    from codeloop.review.refiner import spec_tests

    return spec_tests(state, [a["file_path"] for a in state["artifacts"]])


def _checked_objections(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
                        trail: DebugTrail, issues: list[str],
                        suggestions: list[str]) -> tuple[bool, list[str], list[str]]:
    """The model's objections to a change that passes every check, run as tests
    (objection_test.py): ones no test shows go to the person beside the diff, shown ones to the
    refiner with the failure that shows them; otherwise they stand as they are."""
    checked = check_objections(state, ctx, usage, trail, issues, _spec(state))
    if checked is None:
        return False, issues, suggestions
    if checked.unfounded:
        trail.log("thinking", "the reviewer said no, but no test written for its objections "
                              "fails on the change, and every check passes: the change goes "
                              "to approval with the reviewer's remarks")
        return True, [], [*issues, *suggestions, checked.remark()]
    shown = [f"the reviewer's objection as a test fails on the change: {name}: "
             + " | ".join(texts)[:400] for name, texts in checked.shown.items()]
    return False, [*issues, *shown], suggestions


def review(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
           trail: DebugTrail) -> StageOutput:
    iteration = state["iteration"] + 1
    update: dict[str, Any] = {"iteration": iteration}
    if state.get("request_test") is None and state["request"] and _unchanged(state):
        # before the first refinement: the request as a test that fails on the code now
        found = write_request_test(state, ctx, usage, trail, _spec(state))
        state = {**state, "request_test": found or {}}  # type: ignore[assignment]
        update["request_test"] = found or {}
    tests = _tests(state, ctx, trail)
    # request test functions that did not see the change, that the workspace's own tests
    # contradict, or that now demand only an exception the request never asks for, stop
    # blocking
    set_aside = unseen_change(state, tests) or against_the_spec(state, tests, _spec(state)) \
        or invented_demands(state, tests)
    if set_aside:
        state = {**state, "request_test": set_aside}  # type: ignore[assignment]
        update["request_test"] = set_aside
        trail.log("thinking", set_aside["set_aside"])
        tests = _tests(state, ctx, trail)
    lint = [line for a in state["artifacts"] for line in ruff_findings(a["file_path"],
                                                                       a["content"])]
    metrics = metric_deltas(state["originals"], state["artifacts"])
    blocking = rule_problems(state, tests, _imports(state, ctx, trail))
    if state["request"] and state["iteration"] == 0 and _unchanged(state):
        # Nothing done yet for a change request: no model verdict can pass it, and the
        # refiner gets the request itself (saves a review call, ~10 s on the 1.5B).
        model_ok, issues, suggestions = False, _flagged(state), []
        trail.log("thinking", "the request is not implemented yet: straight to the refiner")
    else:
        model_ok, issues, suggestions = _ask_model(state, ctx, usage, trail, tests, lint)
    model_said_yes = model_ok
    if not model_ok and not issues and suggestions:
        # The 1.5B often puts its reason in "suggestions" ("get_page does not return the
        # first items because ..."): a "no" names its issues there, for the refiner.
        issues, suggestions = suggestions, []
    if not model_ok and not blocking and _has_change(state) and _request_verified(state, tests):
        # The request's own test failed on the code before and passes now, with every other
        # check: an objection nothing measures does not hold the change back (measured on
        # the 1.5B: "auth_headers should be defined at the top of the file" against a right
        # fix); the person sees it beside the diff.
        model_ok, issues, suggestions = True, [], [*issues, *suggestions]
        trail.log("thinking", "the reviewer said no, but the request's test, which failed "
                              "before the change, passes now with every check: the change "
                              "goes to approval with the reviewer's remarks")
    if not model_ok and not blocking and state["request"] and _has_change(state) \
            and beside_the_change([*issues, *suggestions], state["request"],
                                  state["originals"], _contents(state)):
        # Under a change request, every objection is about code the change left as it was
        # and the request does not name (objections.py; mutable_default: a right fix refused
        # over cart_size): the person sees them beside the diff. Without a request the whole
        # file is under review, and such an objection is the review's finding.
        model_ok, issues, suggestions = True, [], [*issues, *suggestions]
        trail.log("thinking", "the reviewer said no only about code the change did not touch "
                              "and the request does not name, and every check passes: the "
                              "change goes to approval with the reviewer's remarks")
    if not model_ok and not blocking and issues and state["request"] and _has_change(state):
        model_ok, issues, suggestions = _checked_objections(state, ctx, usage, trail, issues,
                                                            suggestions)
    if not model_ok and not blocking and not issues:
        if _has_change(state):
            # A bare "no" (no issue, no suggestion) on a change that passes every check
            # gives the refiner nothing to act on: the person decides.
            model_ok = True
            trail.log("thinking", "the reviewer said no but gave no reason and every "
                                  "check passes: the change goes to approval")
        else:
            issues = ["the reviewer did not approve but named no issue: check the code again"]
    approved = model_ok and not blocking
    if blocking and model_ok:
        trail.log("thinking", "the model approved, but the rules block it: "
                              + "; ".join(blocking[:3]))
    request_test = state.get("request_test") or {}
    feedback = {"approved": approved, "model_approved": model_said_yes, "iteration": iteration,
                "request_test": ({"path": request_test["path"],
                                  "tests": request_test["reproduced"],
                                  "content": request_test["content"],
                                  "passes": _request_verified(state, tests),
                                  "set_aside": request_test.get("set_aside")}
                                 if request_test.get("path") else None),
                "issues": [*blocking, *issues], "suggestions": suggestions,
                "tests": {"ran": tests["ran"], "passed": tests["passed"],
                          "failed": tests["failed"], "failures": tests["failures"],
                          "before": {k: state["baseline_tests"].get(k, 0)
                                     for k in ("passed", "failed")}},
                "metrics": metrics, "lint": lint[:MAX_ITEMS]}
    update.update(review_feedback=feedback, is_fixed=approved)
    if approved:
        pending = pending_changes(state["originals"], state["artifacts"],
                                  state["request"] or "review fixes")
        update.update(workflow_status="awaiting_approval", pending_diffs=[RESET, *pending],
                      last_error=None)
        return StageOutput(update, f"approved (review {iteration}); {len(pending)} file(s) "
                                   "to approve")
    problems = "\n".join(f"- {p}" for p in feedback["issues"])
    update["last_error"] = problems
    if iteration >= MAX_ITERATIONS:
        update.update(workflow_status="failed",
                      error_log=[f"Max iterations ({MAX_ITERATIONS}) reached"])
    elif state["refinement_iteration"] >= MAX_REFINEMENT_ITERATIONS:
        update.update(workflow_status="failed", error_log=[
            f"Max refinement iterations ({MAX_REFINEMENT_ITERATIONS}) reached"])
    return StageOutput(update, f"not approved (review {iteration}): "
                               f"{len(feedback['issues'])} issue(s)", ok=False)
