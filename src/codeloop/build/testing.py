"""Running a stack's test command on a tree, in the sandbox, without network, on a
throw-away copy (what the tests write never reaches the project).

The verdict is the command's exit status: the model wrote the tests as well as the code, so
a trusted harness would not add a check it cannot forge; the integration run over the whole
suite on main is the build's real gate. What the model is told of a failure is the output's
tail, cut to a size a small model's context can hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from codeloop.build.stacks import Stack
from codeloop.events import EventBus, TestResult
from codeloop.sandbox.bwrap import INSIDE_WORKSPACE
from codeloop.sandbox.runner import run_command
from codeloop.sandbox.types import Limits, SandboxError, SandboxUnavailable

FAILURE_CHARS = 2_500  # of the output's tail, shown to the model

_COUNTS = [
    # pytest: "3 passed, 1 failed, 2 errors in 0.12s"
    (re.compile(r"(\d+) passed"), re.compile(r"(\d+) failed"), re.compile(r"(\d+) errors?\b")),
    # jest/vitest: "Tests:       1 failed, 2 passed, 3 total"
    (re.compile(r"Tests:.*?(\d+) passed"), re.compile(r"Tests:.*?(\d+) failed"), None),
]


@dataclass
class TestRun:
    __test__ = False  # not a pytest test class

    passed: bool
    summary: str  # one line
    output: str  # the tail the model is shown on failure
    counts: tuple[int, int, int]  # passed, failed, errors (as far as the output says)


def run_tests(stack: Stack, tree: Path, *, bus: EventBus | None = None,
              unsafe_no_sandbox: bool = False, timeout: float | None = None) -> TestRun:
    """The stack's test command on `tree` (a copy of it), sandboxed; a TestResult event."""
    limits = Limits(memory_mb=stack.memory_mb, address_space_mb=stack.address_space_mb,
                    cpu_seconds=int(stack.test_timeout) + 5)
    try:
        result = run_command(stack.commands(stack.test_command), workspace=tree, mode="cow",
                             timeout=timeout or stack.test_timeout, limits=limits,
                             env=stack.test_env, unsafe_no_sandbox=unsafe_no_sandbox)
    except SandboxUnavailable:
        raise
    except SandboxError as exc:
        run = TestRun(False, f"the sandbox could not run the tests: {exc}", str(exc), (0, 0, 1))
    else:
        # Paths as the model writes them: relative (the 1.5B copied "/workspace/app/x.py"
        # from a traceback into write_file, outside its worktree).
        text = (result.stdout + "\n" + result.stderr).strip().replace(
            INSIDE_WORKSPACE + "/", "")
        counts = _counts(text)
        why = f"limit hit: {result.limit_hit}" if result.limit_hit else f"exit {result.exit_code}"
        summary = (f"{counts[0]} passed, {counts[1]} failed, {counts[2]} errors ({why})"
                   if any(counts) else why)
        run = TestRun(result.ok, summary, text[-FAILURE_CHARS:], counts)
    if bus is not None:
        bus.emit(TestResult(passed=run.counts[0], failed=run.counts[1], errors=run.counts[2],
                            details=[] if run.passed else [run.summary]))
    return run


def _counts(text: str) -> tuple[int, int, int]:
    for passed_re, failed_re, errors_re in _COUNTS:
        found = [_last(rx, text) if rx else 0 for rx in (passed_re, failed_re, errors_re)]
        if any(found):
            return found[0], found[1], found[2]
    # go test -v: one line per test
    passed = len(re.findall(r"^--- PASS", text, re.MULTILINE))
    return passed, len(re.findall(r"^--- FAIL", text, re.MULTILINE)), 0


def _last(rx: re.Pattern[str], text: str) -> int:
    found = rx.findall(text)
    return int(found[-1]) if found else 0
