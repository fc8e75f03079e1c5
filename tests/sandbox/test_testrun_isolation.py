"""The trusted harness and the candidate's process: what the candidate can see, what comes
back across the pipe, timeouts it cannot switch off, and failures that are codeloop's."""

from __future__ import annotations

import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codeloop.sandbox.testrun import run_asserts, run_check, run_pytest
from codeloop.sandbox.testrun.verdict import pytest_message

HERE = Path(__file__).resolve().parents[2] / "src/codeloop/sandbox/testrun"


def test_the_candidate_sees_no_channel_no_tests_and_cannot_read_the_harness():
    probe = '''
import os
def probe():
    seen = []
    for root, _dirs, files in os.walk("."):
        for name in files:
            text = open(os.path.join(root, name), errors="replace").read()
            if "SECRET_" + "EXPECTED" in text:
                seen.append(name)
    if any("CODELOOP" in k for k in os.environ):
        seen.append("env")
    try:
        os.listdir(f"/proc/{os.getppid()}/fd")
        seen.append("parent fds")
    except PermissionError:
        pass
    fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
    return seen, len(fds)
'''
    report = run_check(probe, "def check(candidate):\n    SECRET_EXPECTED = 1\n"
                       "    assert candidate() == ([], 6)\n", "probe", timeout=5)
    # stdin, stdout, stderr, the two pipes to the harness, and listdir's own fd
    assert report.all_passed, report.cases


def test_returned_values_cross_as_plain_values():
    code = '''
from collections import Counter, namedtuple
Point = namedtuple("Point", "x y")
def gen(n):
    yield from range(n)
def point():
    return Point(1, 2)
def counts(s):
    return Counter(s)
def sort_in_place(xs):
    xs.sort()
def obj():
    return object()
class MyError(ValueError):
    pass
def bad():
    raise MyError("no")
def key():
    return {}["k"]
'''
    report = run_asserts(code, [
        "assert list(gen(3)) == [0, 1, 2]", "assert point() == (1, 2)",
        "assert counts('aab') == {'a': 2, 'b': 1}",
        "xs = [3, 1, 2]; sort_in_place(xs); assert xs == [1, 2, 3]",
        "assert obj() is None", "assert bad() is None", "assert key() is None"], timeout=5)
    kinds = [c.kind for c in report.cases]
    assert kinds == ["pass", "pass", "pass", "pass", "error", "error", "error"], report.cases
    assert report.cases[4].message == ("TypeError: obj() returned a object object, which cannot "
                                       "leave the candidate's process")
    assert report.cases[5].message == "MyError: no" and report.cases[5].line == 17
    assert report.cases[6].message == "KeyError: 'k'"


def test_a_custom_exception_still_matches_its_builtin_base_in_pytest():
    code = "class Bad(ValueError):\n    pass\ndef f():\n    raise Bad('x')\n"
    tests = ("import pytest\nfrom solution import f\n\n"
             "def test_raises():\n    with pytest.raises(ValueError, match='x'):\n        f()\n")
    assert run_pytest(code, tests, timeout=5).all_passed


def test_the_candidate_cannot_switch_off_the_timeout_and_the_next_test_runs():
    code = '''
import signal
signal.signal(signal.SIGALRM, signal.SIG_IGN)
signal.setitimer = lambda *a: None
def spin():
    while True:
        try:
            pass
        except BaseException:
            pass
def add(a, b):
    return a + b
'''
    started = time.perf_counter()
    report = run_asserts(code, ["assert spin() is None", "assert add(1, 1) == 2"], timeout=1)
    assert [c.kind for c in report.cases] == ["timeout", "pass"]
    assert time.perf_counter() - started < 5


def test_the_restricted_decoder_builds_no_class():
    sys.path.insert(0, str(HERE))
    try:
        import codec
    finally:
        sys.path.remove(str(HERE))

    class Boom:
        def __reduce__(self):
            return (subprocess.call, (["true"],))

    data = pickle.dumps(Boom())
    with pytest.raises(codec.ChannelClosed, match="not a plain value"):
        codec.decode(data)
    assert codec.decode(pickle.dumps([1, (2.5, "x"), {3: {4}}, complex(1, 2), b"z"])) == \
        [1, (2.5, "x"), {3: {4}}, complex(1, 2), b"z"]


def test_a_missing_pytest_is_a_harness_error_not_a_failed_test(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # The bare venv lives outside the paths the sandbox binds, so this one runs unsandboxed.
    report = run_pytest("def add(a, b):\n    return a + b\n",
                        "from solution import add\ndef test_a():\n    assert add(1, 1) == 2\n",
                        timeout=5, python=str(venv / "bin/python"), unsafe_no_sandbox=True)
    assert report.harness_error is not None and not report.all_passed
    assert report.harness_error.startswith("pytest is not installed in codeloop's environment")
    assert report.harness_error.endswith("reinstall codeloop")
    assert report.error is None and report.cases == []


def test_a_harness_that_cannot_start_is_a_harness_error():
    report = run_asserts("def f():\n    return 1\n", ["assert f() == 1"],
                         python="/nonexistent/python3", timeout=2)
    assert report.harness_error is not None
    assert report.harness_error.startswith("the test harness did not start")
    assert report.cases == [] and not report.all_passed


def test_the_pytest_message_parser_is_linear_and_still_precise():
    assert pytest_message("assert 5 == 4\n +  where 5 = add(2, 2)") == \
        "add(2, 2) returned 5, expected 4"
    assert pytest_message("assert 'a == b' == 'c'\n +  where 'a == b' = f('x = y')") == \
        "f('x = y') returned 'a == b', expected 'c'"
    # The old regex took ~3 s on this one (quadratic in the ' == ' count), ~13 s at 20,000.
    hostile = "assert " + "x == " * 10_000 + "\n"
    started = time.perf_counter()
    pytest_message(hostile)
    pytest_message("assert " + "x == " * 40_000 + "\n+ where " + "x = " * 40_000)
    pytest_message(("assert " + "a" * 3000 + "\n") * 200)
    assert time.perf_counter() - started < 0.1


def test_solve_and_bench_treat_a_harness_failure_as_codeloop_s_not_the_code_s():
    from codeloop.bench.scoring import _from_report
    from codeloop.solve.execute import TestFileError, TestHarnessError, raise_harness_error

    report = run_asserts("def f():\n    return 1\n", ["assert f() == 1"],
                         python="/nonexistent/python3", timeout=2)
    with pytest.raises(TestHarnessError, match="the tests could not be run: the test harness"):
        raise_harness_error(report)
    assert issubclass(TestHarnessError, TestFileError)  # solve's CLI reports it and stops
    scored = _from_report(report, 0.1)
    assert scored.outcome == "harness_error" and not scored.passed
    assert "did not start" in scored.reason
    raise_harness_error(run_asserts("def f():\n    return 2\n", ["assert f() == 1"]))  # no raise
