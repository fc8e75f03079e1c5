"""The review's site for the edit engine (jobs/edit_engine): files held in state, never on
disk before approval. A write goes through the security gate's path check (path guard, host
policy: a refusal is a HIGH finding that blocks this round's review, as the gate's) and the
new-file rule (targets.no_reason_to_create); the check is the review's own
measurement of the files as they are now: the workspace's tests in the sandbox, every
changed Python module compiled and imported in the sandbox (the request test,
request_test.py, runs with the tests), and the HIGH security
findings in the files changed and the files the request names: what blocks an approval."""

from __future__ import annotations

from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edit_engine import Check, EditResult
from codeloop.jobs.react.changed_lint import ChangedLint
from codeloop.review.checks import run_workspace_tests, security_findings, syntax_error
from codeloop.review.context import ReviewContext, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.import_check import import_problems
from codeloop.review.request_test import overlay
from codeloop.review.security_gate import check_target, refused_finding
from codeloop.review.state import Artifact, ReviewState
from codeloop.review.targets import no_reason_to_create, workspace_python_files
from codeloop.review.written_findings import written_line_problems

SERIOUS = ("high",)  # what blocks an approval (reviewer.rule_problems): the same bar
MAX_PROBLEMS = 10


class ReviewSite:
    """`files`: {path: text} of the change as it stands (the artifacts), updated by writes;
    `targets`: the files the check's security scan covers besides the changed ones."""

    def __init__(self, state: ReviewState, ctx: ReviewContext, trail: DebugTrail,
                 files: dict[str, str], targets: list[str] | None = None) -> None:
        self.state, self.ctx, self.trail = state, ctx, trail
        self.files = dict(files)
        self.targets = list(targets or [])
        self.guard = workspace_guard(state)
        self._known: list[str] | None = None
        self.refusals: list[dict] = []  # the path guard's refusals, as the gate's findings

    def _workspace_files(self) -> list[str]:
        if self._known is None:
            self._known = workspace_python_files(self.guard)
        return self._known

    def write(self, path: str, text: str) -> str | None:
        rel, why = check_target(self.guard, path)
        if rel is None:  # a HIGH finding: it blocks the review of this round (the gate's)
            self.refusals.append(refused_finding(path, why or "refused"))
            self.trail.log("error", self.refusals[-1]["message"])
            return f"{path} was not written: {why}"
        if rel not in self.files and not self.guard.exists(rel):
            why = no_reason_to_create(rel, self.state, self._workspace_files())
            if why is not None:
                self.trail.log("error", f"{rel} not created: {why}")
                return f"{rel} was not written: {why}"
        self.files[rel] = text
        return None

    def artifacts(self) -> list[Artifact]:
        return [Artifact(file_path=p, content=t, language=language_of(p))
                for p, t in self.files.items()]

    def changed(self) -> list[str]:
        originals = self.state["originals"]
        return [p for p, t in self.files.items() if originals.get(p) != t]

    def check(self) -> Check | None:
        """The review's problems now; `score`: the tests passing (0 when a changed module
        does not compile or import), so the engine undoes rounds that leave fewer passing
        than the refinement started with (md5_password's, path_traversal's first fixes
        broke the workspace test that passed, and the next refinement repaired the breakage
        instead of the request)."""
        measured: dict[str, int] = {}
        problems = review_problems(self.state, self.ctx, self.trail, self.artifacts(),
                                   self.changed(), self.targets, measured)
        return Check(not problems, "\n".join(f"- {p}" for p in problems[:MAX_PROBLEMS]),
                     score=measured.get("score"))


def log_rounds(trail: DebugTrail, result: EditResult) -> None:
    """Each engine round's prompt and reply in the node's debug trail (what --debug shows
    and the run's events keep), as ask_logged does for the review's own calls."""
    for number, (prompt, reply) in enumerate(zip(result.prompts, result.replies), 1):
        trail.log("prompt", prompt, {"prompt": "edit", "round": number})
        trail.log("result", reply, {"prompt": "edit", "round": number})


def review_problems(state: ReviewState, ctx: ReviewContext, trail: DebugTrail,
                    artifacts: list[Artifact], changed: list[str],
                    targets: list[str], measured: dict[str, int] | None = None) -> list[str]:
    """The measured problems of a change: failing tests, modules that do not compile or
    import, HIGH security findings in the changed and targeted files, MEDIUM ones on the
    lines the change wrote (written_findings.py). `measured` gets "score": the tests
    passing, 0 when a changed module does not compile or import (none when no test ran)."""
    problems: list[str] = []
    measured = measured if measured is not None else {}
    current = {a["file_path"]: a["content"] for a in artifacts}
    for path in changed:
        error = syntax_error(path, current[path])
        if error:
            problems.append(error)
    extra = overlay(state)
    if state["test_files"] or extra:
        tests = run_workspace_tests(state["workspace"], artifacts, timeout=ctx.sandbox_timeout,
                                    unsafe_no_sandbox=ctx.unsafe_no_sandbox, extra=extra)
        trail.log("tool_call", f"pytest in the sandbox: {tests['passed']} passed, "
                               f"{tests['failed']} failed", {"failures": tests["failures"]})
        measured["score"] = 0 if problems else tests["passed"]
        problems += [f"failing test {f}" for f in tests["failures"]]
        if tests["failed"] and not tests["failures"]:
            problems.append(f"{tests['failed']} test(s) fail")
        if tests["failed"]:
            problems.append("pytest output:\n" + (tests.get("failure_lines")
                                                  or tests["output_tail"][-1200:]))
    compiled = [p for p in changed if p.endswith(".py") and not syntax_error(p, current[p])]
    problems += lint_errors(state["originals"], {p: current[p] for p in compiled})
    not_importing = import_problems(state["workspace"], artifacts, compiled,
                                    timeout=ctx.sandbox_timeout,
                                    unsafe_no_sandbox=ctx.unsafe_no_sandbox)
    if not_importing and "score" in measured:
        measured["score"] = 0
    problems += not_importing
    for path in dict.fromkeys([*changed, *targets]):
        if path not in current:
            continue
        findings = security_findings(path, current[path])
        for finding in findings:
            if finding["severity"] in SERIOUS:
                problems.append(f"{finding['severity'].upper()} security finding in {path} "
                                f"line {finding['line']}: {finding['message']}")
        if path in changed:
            problems += written_line_problems(findings, state["originals"].get(path),
                                              current[path])
    return problems


def lint_errors(originals: dict, changed: dict[str, str]) -> list[str]:
    """Lint errors the change brought into its Python files (code that cannot run as written:
    an undefined name such as `os` never imported, `return` outside a function), as the
    agent's context-first edit counts them (jobs/react/changed_lint.py): the module may still
    import, and no test may reach the line."""
    lint = ChangedLint(lambda _line: None)
    lint.start({p: text for p in changed if (text := originals.get(p)) is not None})
    errors, _warnings = lint.new_findings(changed)
    return [f"lint error (the code cannot run as written): {e}" for e in errors]
