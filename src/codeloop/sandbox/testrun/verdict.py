"""From what the trusted harness wrote on its channel to a TestReport (host side).

Only the channel counts: never the workspace, never stdout. The records are still checked
against what was asked (known kinds, each expected test at most as often as it was given,
nothing else), and a harness that never said "start" is a harness failure, not the code's.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import pairwise

from codeloop.sandbox.testrun.report import CaseResult, TestReport
from codeloop.sandbox.types import SandboxResult

CASE_KINDS = ("pass", "fail", "error", "timeout")
KINDS = {*CASE_KINDS, "start", "collected", "skipped", "done", "load_error", "harness_error"}
MAX_PYTEST_MESSAGE = 4000


def parse_records(text: str) -> list[dict]:
    records = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("kind") in KINDS:
            records.append(record)
    return records


def unexpected(records: list[dict], expected: list[str] | None) -> str | None:
    """What is wrong with the case records, or None; expected=None (pytest): any name once."""
    left = Counter(expected) if expected is not None else None
    seen: set[str] = set()
    for record in records:
        if record["kind"] not in CASE_KINDS:
            continue
        name = record.get("name")
        if not isinstance(name, str):
            return "a result without a test name"
        if left is None:
            if name in seen:
                return f"two results for {name!r}"
            seen.add(name)
        elif left[name] <= 0:
            return f"a result for a test that was not asked for or already reported: {name!r}"
        else:
            left[name] -= 1
    return None


def build_report(records: list[dict], expected: list[str] | None, result: SandboxResult,
                 *, per_test: float) -> TestReport:
    """Tests the run never reached are marked, not lost. expected=None: a pytest run."""
    report = TestReport(sandbox=result)
    failure = next((r for r in records if r["kind"] == "harness_error"), None)
    if failure is not None:
        report.harness_error = str(failure.get("message") or "the test harness failed")
        return report
    if not any(r["kind"] == "start" for r in records):
        report.harness_error = "the test harness did not start: " + ended_by(result)
        return report
    pytest_run = expected is None
    if pytest_run:
        collected = next((r for r in records if r["kind"] == "collected"), None)
        names = collected.get("names") if collected else None
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            skipped = {r.get("name") for r in records if r["kind"] == "skipped"}
            expected = [name for name in names if name not in skipped]
    problem = unexpected(records, expected)
    if problem:
        report.harness_error = f"the test harness reported {problem}"
        return report
    load_error = next((r for r in records if r["kind"] == "load_error"), None)
    if load_error:
        report.error = condense(str(load_error.get("message", "")))
        return report
    cases = [CaseResult(r["name"], r["kind"], str(r.get("message") or ""),
                        r.get("line") if isinstance(r.get("line"), int) else None)
             for r in records if r["kind"] in CASE_KINDS]
    done = next((r for r in records if r["kind"] == "done"), None)
    if expected is not None and len(cases) < len(expected):
        reached, missing = Counter(case.name for case in cases), []
        for name in expected:
            if reached[name] > 0:
                reached[name] -= 1
            else:
                missing.append(name)
        cause = ended_by(result)
        for i, name in enumerate(missing):
            kind = "timeout" if result.limit_hit == "timeout" and i == 0 else "error"
            cases.append(CaseResult(name, kind, cause if i == 0 else "not run: " + cause))
    report.cases = cases
    if not cases:
        if done is None:
            report.error = ended_by(result)
        elif done.get("exit_code") in (3, 4):
            report.harness_error = f"pytest could not run (exit {done['exit_code']}): " + \
                _tail(result)
        elif pytest_run:
            report.error = "pytest collected no tests"
    return report


def _tail(result: SandboxResult) -> str:
    return " | ".join(result.stderr.strip().splitlines()[-3:]) or "no output"


def ended_by(result: SandboxResult) -> str:
    if result.limit_hit == "timeout":
        return f"timed out (the run was stopped after {result.seconds:.1f}s)"
    if result.limit_hit:
        return f"the run hit the {result.limit_hit} limit"
    tail = result.stderr.strip().splitlines()[-3:]
    return f"the test run ended early (exit {result.exit_code})" + (
        ": " + " | ".join(tail) if tail else "")


def condense(message: str) -> str:
    """Pytest's collection errors are long; keep the `E ` lines that name the problem."""
    lines = [ln[1:].strip() for ln in message.splitlines() if ln.startswith("E ")]
    return " ".join(lines)[-600:] if lines else message.strip()[-600:]


def pytest_message(message: str) -> str:
    """Pytest's `assert 5 == 4 / + where 5 = add(2, 2)` as `add(2, 2) returned 5, expected 4`.

    Linear in the message (it is the candidate's to make long): the actual value X is the
    common start of `X == EXPECTED` and `X = CALL`, and those two first differ exactly two
    characters after X (`' =='` against `' = '`), so one common-prefix scan finds it."""
    message = message[:MAX_PYTEST_MESSAGE]
    lines = message.split("\n")
    for first, second in pairwise(lines):
        if not first.startswith("assert "):
            continue
        where = second.lstrip()
        if not where.startswith("+"):
            continue
        where = where[1:].lstrip()
        if not where.startswith("where "):
            continue
        left, right = first[len("assert "):], where[len("where "):]
        common = 0
        for a, b in zip(left, right, strict=False):
            if a != b:
                break
            common += 1
        end = common - 2
        if end > 0 and left[end:end + 4] == " == " and right[end:end + 3] == " = ":
            call = right[end + 3:].strip()
            if call:
                return f"{call} returned {left[:end]}, expected {left[end + 4:]}"
    return message.strip()
