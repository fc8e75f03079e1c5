"""Run a candidate program's tests in the sandbox: the task's examples, and the external
test file's tests for this task. The result is a plain ExecSummary for the state."""

from __future__ import annotations

import ast
from pathlib import Path

from codeloop.sandbox.types import SandboxUnavailable
from codeloop.solve.state import ExecSummary, empty_exec
from codeloop.user_files import read_text

MAX_FAILURES = 6  # concrete failing cases kept for the review and the refinement prompt


class TestFileError(ValueError):
    """The external test file is missing or is not Python."""

    __test__ = False  # not a pytest test class, despite the name


class TestHarnessError(TestFileError):
    """codeloop could not test the code at all (pytest missing, the sandbox or the test
    harness failed). Not the candidate's fault: the run ends with it, no refinement round is
    spent on correct code. A TestFileError so every caller that reports a bad test setup
    reports this one too."""


class NoSandboxError(TestHarnessError, SandboxUnavailable):
    """No sandbox at all: a TestHarnessError for solve, still a SandboxUnavailable for the
    benchmark runner (which stops the whole run on it rather than score an outage)."""


def read_test_file(path: Path) -> str:
    source = read_text(path, TestFileError, "test file")
    try:
        ast.parse(source)
    except SyntaxError as exc:
        raise TestFileError(f"test file {path} is not valid Python "
                            f"(line {exc.lineno}: {exc.msg})") from None
    return source


def narrow_test_source(source: str, task_id: str) -> tuple[str, int]:
    """The test file narrowed to this task's tests (`test_<task_id>` and `test_<task_id>_*`),
    with its imports, fixtures and helpers. Returns (source, number of tests kept); when no
    test is named for the task, the whole file (a file written for this one task).
    A task id that prefixes another (`count`, `count_vowels`) also picks up the other's
    tests: name tasks so that none is a prefix of another."""
    tree = ast.parse(source)
    prefix = f"test_{task_id}"

    def is_test(node: ast.stmt) -> bool:
        return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            and node.name.startswith("test")

    def is_test_class(node: ast.stmt) -> bool:
        return isinstance(node, ast.ClassDef) and node.name.startswith("Test")

    def mine(node: ast.stmt) -> bool:
        return node.name == prefix or node.name.startswith(prefix + "_")  # type: ignore[attr-defined]

    tests = [n for n in tree.body if is_test(n)]
    if not any(mine(n) for n in tests):
        return source, len(tests) + sum(1 for n in tree.body if is_test_class(n))
    kept = [n for n in tree.body if not is_test_class(n) and (not is_test(n) or mine(n))]
    lines = source.splitlines()
    parts = []
    for node in kept:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        parts.append("\n".join(lines[first - 1: node.end_lineno]))
    return "\n\n\n".join(parts) + "\n", sum(1 for n in kept if is_test(n))


def _failure_lines(report) -> list[str]:
    lines = []
    for case in report.cases:
        if not case.passed:
            name = case.name.removeprefix("assert ")
            message = case.message or case.kind
            # "f(2) returned 5, expected 4" names its call; other messages need the test.
            lines.append(message if " returned " in message else f"{name}: {message}")
    return lines


def raise_harness_error(report) -> None:
    """A report that says codeloop could not test the code ends the run (TestHarnessError)."""
    if report.harness_error:
        raise TestHarnessError(f"the tests could not be run: {report.harness_error}")


def _sandboxed(run, *args, **kwargs):
    """One harness run; the sandbox's own failures become NoSandboxError/TestHarnessError,
    as does a report saying codeloop could not test the code."""
    from codeloop.sandbox.types import SandboxError

    try:
        report = run(*args, **kwargs)
    except SandboxUnavailable as exc:
        raise NoSandboxError(f"no sandbox to run the tests in: {exc}") from None
    except SandboxError as exc:
        raise TestHarnessError(f"the sandbox could not run the tests: {exc}") from None
    raise_harness_error(report)
    return report


def run_calls(program: str, calls: list[str], *, timeout: float, entry_point: str,
              unsafe_no_sandbox: bool = False) -> list[tuple[str, str]] | None:
    """(kind, message) of each call, run in the sandbox like the tests; None when the
    program does not load. `calls` must be literal-argument calls (solve/probes.py:
    probe_calls, solve/edges.py): they run in the trusted harness."""
    from codeloop.sandbox.testrun import run_asserts
    from codeloop.solve.probes import PROBE_ASSERT

    report = _sandboxed(run_asserts, program, [PROBE_ASSERT.format(call=c) for c in calls],
                        timeout=timeout, unsafe_no_sandbox=unsafe_no_sandbox,
                        entry_point=entry_point)
    if report.error or len(report.cases) != len(calls):
        return None
    return [(case.kind, case.message) for case in report.cases]


def run_probes(program: str, calls: list[str], *, timeout: float, entry_point: str,
               unsafe_no_sandbox: bool = False) -> tuple[str, ...] | None:
    """What the program does on each call (solve/probes.py: outcome); None when it does
    not load."""
    from codeloop.solve.probes import outcome

    results = run_calls(program, calls, timeout=timeout, entry_point=entry_point,
                        unsafe_no_sandbox=unsafe_no_sandbox)
    return None if results is None else tuple(outcome(kind, message) for kind, message in results)


def run_tests(program: str, assertions: list[str], test_source: str | None, *,
              timeout: float = 10.0, unsafe_no_sandbox: bool = False,
              entry_point: str | None = None) -> ExecSummary:
    """Execute in the sandbox. A failure of the code becomes the summary's `error`; a
    failure of codeloop's own testing (see TestHarnessError) raises. entry_point: the
    function under test (see run_asserts)."""
    from codeloop.sandbox.testrun import run_asserts, run_pytest

    summary = empty_exec()
    summary["ran"] = True
    reports = [_sandboxed(run_asserts, program, [f"assert {a}" for a in assertions],
                          timeout=timeout, unsafe_no_sandbox=unsafe_no_sandbox,
                          entry_point=entry_point)]
    if test_source is not None:
        reports.append(_sandboxed(run_pytest, program, test_source, module_name="solution",
                                  timeout=max(timeout, 30), unsafe_no_sandbox=unsafe_no_sandbox))
    failures: list[str] = []
    errors: list[str] = []
    for report in reports:
        summary["passed"] += report.passed
        summary["failed"] += report.failed
        failures += _failure_lines(report)
        if report.error:  # a timed-out case is a failure like any other, not a load error
            errors.append(report.error)
    summary["total"] = summary["passed"] + summary["failed"]
    summary["error"] = "; ".join(errors)
    summary["failures"] = failures[:MAX_FAILURES]
    summary["all_passed"] = not errors and summary["failed"] == 0
    return summary
