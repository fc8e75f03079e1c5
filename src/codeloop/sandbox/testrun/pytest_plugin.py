"""A pytest plugin that runs INSIDE the sandbox (copied into the workspace; stdlib + pytest).

Appends one JSON line per test outcome to the file named by $CODELOOP_RESULT_FILE."""

from __future__ import annotations

import json
import os

_TIMEOUT_MARK = "Timeout"


def _emit(record: dict) -> None:
    path = os.environ.get("CODELOOP_RESULT_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")


def _crash(report) -> tuple[str, int | None]:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message, crash.lineno
    return str(report.longrepr)[-1500:], None


def pytest_runtest_logreport(report) -> None:
    if report.when == "call" or (report.when != "call" and not report.passed):
        if report.passed:
            if report.when == "call":
                _emit({"kind": "pass", "name": report.nodeid})
            return
        if report.skipped:
            return
        message, line = _crash(report)
        kind = "timeout" if _TIMEOUT_MARK in message.split("\n")[0] else (
            "fail" if "AssertionError" in message or message.startswith("assert") else "error")
        if report.when != "call":
            message = f"in test {report.when}: {message}"
        _emit({"kind": kind, "name": report.nodeid, "message": message, "line": line})


def pytest_collectreport(report) -> None:
    if report.failed:
        message, line = _crash(report)
        _emit({"kind": "load_error", "name": report.nodeid, "message": message, "line": line})
