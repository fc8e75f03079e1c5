"""Run candidate code against tests in the sandbox: assert lists (MBPP), check(candidate)
(HumanEval) and pytest files, with one precise result per test.

The harness writes results as JSON lines to a file with an unguessable name in the workspace,
read back after the run: the candidate's prints never mix with them.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
from pathlib import Path

from codeloop.sandbox.runner import run_command
from codeloop.sandbox.testrun.report import CaseResult, TestReport
from codeloop.sandbox.types import Limits, SandboxResult

__all__ = ["CaseResult", "TestReport", "run_asserts", "run_check", "run_pytest"]

_HERE = Path(__file__).parent
CODE_FILE = "solution.py"


def _parse_records(text: str) -> list[dict]:
    records = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("kind"), str):
            records.append(record)
    return records


def _build_report(records: list[dict], expected: list[str], result: SandboxResult,
                  *, per_test: float) -> TestReport:
    """Turn harness records into a report; tests the run never reached are marked, not lost."""
    report = TestReport(sandbox=result)
    load_error = next((r for r in records if r["kind"] == "load_error"), None)
    if load_error:
        report.error = _condense(str(load_error.get("message", "")))
        return report
    cases = [CaseResult(str(r.get("name", "?")), r["kind"], str(r.get("message") or ""),
                        r.get("line") if isinstance(r.get("line"), int) else None)
             for r in records if r["kind"] in ("pass", "fail", "error", "timeout")]
    finished = any(r["kind"] == "done" for r in records)
    if not finished and len(cases) < len(expected):
        cause = _ended_by(result, per_test)
        for i, name in enumerate(expected[len(cases):]):
            kind = "timeout" if result.limit_hit == "timeout" and i == 0 else "error"
            cases.append(CaseResult(name, kind, cause if i == 0 else "not run: " + cause))
    if not cases and not finished:
        report.error = _ended_by(result, per_test)
    report.cases = cases
    return report


def _ended_by(result: SandboxResult, per_test: float) -> str:
    if result.limit_hit == "timeout":
        return f"timed out (the run was stopped after {result.seconds:.1f}s)"
    if result.limit_hit:
        return f"the run hit the {result.limit_hit} limit"
    tail = result.stderr.strip().splitlines()[-3:]
    return f"the test run ended early (exit {result.exit_code})" + (
        ": " + " | ".join(tail) if tail else "")


def _condense(message: str) -> str:
    """Pytest's collection errors are long; keep the `E ` lines that name the problem."""
    lines = [ln[1:].strip() for ln in message.splitlines() if ln.startswith("E ")]
    return " ".join(lines)[-600:] if lines else message.strip()[-600:]


def _harness_run(config: dict, code: str, expected: list[str], per_test: float,
                 limits: Limits | None, **kwargs) -> TestReport:
    result_file = f"_codeloop_results_{secrets.token_hex(8)}.jsonl"
    config = {**config, "code_file": CODE_FILE, "per_test_timeout": per_test,
              "result_file": result_file}
    files = {CODE_FILE: code, "_codeloop_harness.py": (_HERE / "harness.py").read_text(),
             "_codeloop_config.json": json.dumps(config)}
    wall = per_test * (len(expected) + 1) + 5
    result = run_command([sys.executable, "_codeloop_harness.py", "_codeloop_config.json"],
                         files=files, timeout=wall, limits=limits, collect=[result_file],
                         **kwargs)
    records = _parse_records(result.collected.get(result_file, ""))
    return _build_report(records, expected, result, per_test=per_test)


def run_asserts(code: str, asserts: list[str], *, timeout: float = 10,
                limits: Limits | None = None, **kwargs) -> TestReport:
    """MBPP style: each `assert f(x) == y` runs on its own with `timeout` seconds."""
    return _harness_run({"mode": "asserts", "asserts": list(asserts)}, code, list(asserts),
                        timeout, limits, **kwargs)


def run_check(code: str, check_source: str, entry_point: str, *, timeout: float = 10,
              limits: Limits | None = None, **kwargs) -> TestReport:
    """HumanEval style: check(candidate) runs once, candidate being `entry_point`."""
    config = {"mode": "check", "check_source": check_source, "entry_point": entry_point}
    return _harness_run(config, code, [f"check({entry_point})"], timeout, limits, **kwargs)


_WHERE = re.compile(r"^assert (?P<actual>.+?) == (?P<expected>.+)\n\s*\+\s+where (?P=actual) = "
                    r"(?P<call>.+)$", re.MULTILINE)


def _pytest_message(message: str) -> str:
    """Pytest's `assert 5 == 4 / + where 5 = add(2, 2)` as `add(2, 2) returned 5, expected 4`."""
    match = _WHERE.search(message)
    if match:
        return (f"{match['call'].strip()} returned {match['actual']}, "
                f"expected {match['expected']}")
    return message.strip()


def run_pytest(code: str, test_source: str, *, module_name: str = "solution",
               timeout: float = 30, limits: Limits | None = None, **kwargs) -> TestReport:
    """Write the code to <module_name>.py and run the pytest file against it."""
    if not module_name.isidentifier():
        raise ValueError(f"module_name must be a Python identifier (got {module_name!r})")
    result_file = f"_codeloop_results_{secrets.token_hex(8)}.jsonl"
    test_file = f"test_{module_name}.py" if module_name != "test" else "test_module.py"
    files = {f"{module_name}.py": code, test_file: test_source,
             "_codeloop_pytest_plugin.py": (_HERE / "pytest_plugin.py").read_text()}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "_codeloop_pytest_plugin",
            "-p", "pytest_timeout", "-p", "no:cacheprovider",
            f"--timeout={max(1, int(timeout))}", test_file]
    # No plugin autoload: langsmith's pytest plugin alone costs ~4 s of imports per run.
    env = {**kwargs.pop("env", {}), "CODELOOP_RESULT_FILE": result_file,
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    result = run_command(argv, files=files, timeout=timeout + 10, limits=limits, env=env,
                         collect=[result_file], **kwargs)
    records = _parse_records(result.collected.get(result_file, ""))
    for record in records:
        if record["kind"] in ("fail", "error", "timeout"):
            record["message"] = _pytest_message(str(record.get("message") or ""))
    report = _build_report(records + [{"kind": "done"}] if result.exit_code in (0, 1) else records,
                           [], result, per_test=timeout)
    if not report.cases and report.error is None:
        report.error = (_ended_by(result, timeout) if result.exit_code not in (0, 1, 5)
                        else "pytest collected no tests")
    return report
