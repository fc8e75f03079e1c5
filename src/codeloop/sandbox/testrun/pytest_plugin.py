
"""Runs INSIDE the sandbox as the trusted harness for pytest files (stdlib + pytest).

    python -I entry.py pytest_plugin CHANNEL_FD < CONFIG.json   (entry.py calls run() below)

Runs pytest in this (non-dumpable) process. The tests' `import <module_name>` is served by a
meta-path finder whose module holds proxies into the candidate's child process (trusted.py),
so the candidate never runs here. One JSON line per test goes to the channel fd. Per-test
time: pytest-timeout for the test's own code, a deadline on each call into the child.
"""

from __future__ import annotations

import sys
import time

_TIMEOUT_MARK = "Timeout"
MAX_MESSAGE = 4000


def _crash(report) -> tuple[str, int | None]:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message[:MAX_MESSAGE], crash.lineno
    return str(report.longrepr)[-1500:], None


class CandidateModule:
    """Meta-path finder and loader for `module_name`: the candidate's names as proxies."""

    def __init__(self, name: str, candidate) -> None:
        self.name, self.candidate = name, candidate

    def find_spec(self, fullname, path=None, target=None):
        import importlib.util

        return importlib.util.spec_from_loader(fullname, self) if fullname == self.name else None

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        if self.candidate.names is None and not self.candidate.start():
            raise ImportError(self.candidate.load_error[0])
        # The module may define `format` or `sum` (`from solution import sum` asks for it),
        # but `from solution import *` must not hide the tests' builtins: __all__ leaves
        # those names out of a star import.
        import builtins

        names = self.candidate.namespace(frozenset(dir(builtins)))
        module.__dict__.update(names)
        module.__all__ = [n for n in names if not n.startswith("_") and not hasattr(builtins, n)]


class ResultPlugin:
    """One record per test, emitted when the test is finished (a teardown error after a
    passing call makes it an error, not two results)."""

    def __init__(self, channel, candidate, timeout: float) -> None:
        self.channel, self.candidate, self.timeout = channel, candidate, timeout
        self.outcomes: dict[str, dict] = {}

    def pytest_runtest_logstart(self, nodeid, location) -> None:
        self.candidate.deadline = time.monotonic() + self.timeout

    def pytest_runtest_logreport(self, report) -> None:
        if report.nodeid in self.outcomes and self.outcomes[report.nodeid]["kind"] != "pass":
            return
        if report.skipped:  # skipped or xfailed: the host expects no result for it
            self.outcomes.setdefault(report.nodeid, {"kind": "skipped", "name": report.nodeid})
            return
        if report.passed:
            if report.when == "call":
                self.outcomes[report.nodeid] = {"kind": "pass", "name": report.nodeid}
            return
        message, line = _crash(report)
        kind = "timeout" if _TIMEOUT_MARK in message.split("\n")[0] else (
            "fail" if "AssertionError" in message or message.startswith("assert") else "error")
        if report.when != "call":
            message = f"in test {report.when}: {message}"
        self.outcomes[report.nodeid] = {"kind": kind, "name": report.nodeid,
                                        "message": message, "line": line}

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        self.candidate.deadline = None
        if nodeid in self.outcomes:
            self.channel.emit(**self.outcomes.pop(nodeid))

    def pytest_collection_finish(self, session) -> None:
        # The host expects a result for each of these: a run that ends early cannot drop any.
        self.channel.emit(kind="collected", names=[item.nodeid for item in session.items])

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            message, line = _crash(report)
            if self.candidate.load_error is not None:
                message, line = self.candidate.load_error
            self.channel.emit(kind="load_error", name=report.nodeid, message=message, line=line)


def _missing(module: str, package: str) -> str | None:
    try:
        __import__(module)
    except ImportError as exc:
        return (f"{package} is not installed in codeloop's environment ({sys.executable}: "
                f"{exc}); reinstall codeloop")
    return None


WHAT = "the pytest harness"


def run(config: dict, session, trusted) -> None:
    """The pytest file against the candidate's module, for entry.py."""
    missing = _missing("pytest", "pytest") or _missing("pytest_timeout", "pytest-timeout")
    if missing:
        session.channel.emit(kind="harness_error", message=missing)
        return
    import pytest

    session.channel.emit(kind="start")
    timeout = float(config["timeout"])
    candidate = session.start_candidate(config["code_file"], config["module_name"], timeout)
    sys.meta_path.insert(0, CandidateModule(config["module_name"], candidate))
    plugin = ResultPlugin(session.channel, candidate, timeout)
    # importlib mode: pytest leaves sys.path alone, so no workspace file is importable here.
    code = pytest.main(["-q", "-p", "pytest_timeout", "-p", "no:cacheprovider",
                        "--import-mode=importlib", f"--timeout={max(1, int(timeout))}",
                        config["test_file"]], plugins=[plugin])
    session.channel.emit(kind="done", exit_code=int(code))
