"""Run candidate code against tests in the sandbox: assert lists (MBPP), check(candidate)
(HumanEval) and pytest files, with one precise result per test.

Verdicts the candidate cannot forge: inside the sandbox a trusted harness process holds the
tests (given on stdin, never written to a file) and the result channel (an fd the host opened
outside the workspace, see run_command(channel=True)); it runs the candidate's code only in a
child process that has neither, and calls into it through proxies (trusted.py, codec.py).
The host believes nothing but that channel (verdict.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from codeloop.sandbox.runner import CHANNEL_FD_ARG, run_command
from codeloop.sandbox.testrun.report import CaseResult, TestReport
from codeloop.sandbox.testrun.verdict import build_report, parse_records, pytest_message
from codeloop.sandbox.types import Limits, SandboxError, SandboxUnavailable

__all__ = ["CaseResult", "TestReport", "run_asserts", "run_check", "run_pytest"]

_HERE = Path(__file__).parent
CODE_FILE = "solution.py"
HARNESS_DIR = "_codeloop_harness"
_SANDBOX_FILES = ("codec.py", "worker.py", "trusted.py", "entry.py", "harness.py",
                  "pytest_plugin.py")


def _harness_files() -> dict[str, str]:
    return {f"{HARNESS_DIR}/{name}": (_HERE / name).read_text() for name in _SANDBOX_FILES}


def _run(mode: str, config: dict, files: dict[str, str], expected: list[str] | None, *,
         wall: float, per_test: float, limits: Limits | None, python: str | None,
         **kwargs) -> TestReport:
    # -I: neither the workspace nor the script's directory is importable in the harness.
    argv = [python or sys.executable, "-I", f"{HARNESS_DIR}/entry.py", mode, CHANNEL_FD_ARG]
    try:
        result = run_command(argv, files={**files, **_harness_files()}, timeout=wall,
                             limits=limits, stdin=json.dumps(config), channel=True, **kwargs)
    except SandboxUnavailable:
        raise  # no sandbox at all: the caller decides (bench stops, solve says so)
    except SandboxError as exc:
        return TestReport(harness_error=f"the sandbox could not run the tests: {exc}")
    return build_report(parse_records(result.channel), expected, result, per_test=per_test)


def _harness_run(config: dict, code: str, expected: list[str], per_test: float,
                 limits: Limits | None, python: str | None = None, **kwargs) -> TestReport:
    config = {**config, "code_file": CODE_FILE, "per_test_timeout": per_test}
    wall = per_test * (len(expected) + 1) + 5
    return _run("harness", config, {CODE_FILE: code}, expected, wall=wall,
                per_test=per_test, limits=limits, python=python, **kwargs)


def run_asserts(code: str, asserts: list[str], *, timeout: float = 10,
                limits: Limits | None = None, python: str | None = None,
                entry_point: str | None = None, **kwargs) -> TestReport:
    """MBPP style: each `assert f(x) == y` runs on its own with `timeout` seconds.
    python: the interpreter that runs the harness (default: codeloop's own).
    entry_point: the function under test, the one name of the code's that may hide a
    builtin in the asserts (MBPP's `def sum(a, b)`); no other can."""
    asserts = [source.strip() for source in asserts]
    config = {"mode": "asserts", "asserts": asserts, "entry_point": entry_point}
    return _harness_run(config, code, asserts, timeout, limits, python, **kwargs)


def run_check(code: str, check_source: str, entry_point: str, *, timeout: float = 10,
              limits: Limits | None = None, python: str | None = None,
              **kwargs) -> TestReport:
    """HumanEval style: check(candidate) runs once, candidate being `entry_point`."""
    config = {"mode": "check", "check_source": check_source, "entry_point": entry_point}
    return _harness_run(config, code, [f"check({entry_point})"], timeout, limits, python,
                        **kwargs)


def run_pytest(code: str, test_source: str, *, module_name: str = "solution",
               timeout: float = 30, limits: Limits | None = None, python: str | None = None,
               **kwargs) -> TestReport:
    """Run the pytest file against the code, importable as `module_name`.
    python: the interpreter that runs pytest (default: codeloop's own; it must have pytest
    and pytest-timeout, or the report's harness_error says so)."""
    if not module_name.isidentifier():
        raise ValueError(f"module_name must be a Python identifier (got {module_name!r})")
    test_file = f"test_{module_name}.py" if module_name != "test" else "test_module.py"
    config = {"code_file": f"{module_name}.py", "module_name": module_name,
              "test_file": test_file, "timeout": timeout}
    # No plugin autoload: langsmith's pytest plugin alone costs ~4 s of imports per run.
    env = {**kwargs.pop("env", {}), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    report = _run("pytest_plugin", config, {f"{module_name}.py": code,
                                               test_file: test_source},
                  None, wall=timeout + 10, per_test=timeout, limits=limits, python=python,
                  env=env, **kwargs)
    report.cases = [CaseResult(c.name, c.kind, pytest_message(c.message) if not c.passed
                               else c.message, c.line) for c in report.cases]
    return report
