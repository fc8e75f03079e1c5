"""Running candidate code against tests: each kind of outcome with the right detail."""

from __future__ import annotations

from codeloop.sandbox.testrun import run_asserts, run_check, run_pytest

ADD_BUGGY = "def add(a, b):\n    return a + b + (a == 2)\n"
ADD_OK = "def add(a, b):\n    return a + b\n"


def test_asserts_all_pass():
    report = run_asserts(ADD_OK, ["assert add(1, 2) == 3", "assert add(2, 2) == 4"])
    assert report.all_passed and report.passed == 2 and report.failed == 0
    assert report.feedback() == "All 2 tests passed."


def test_asserts_report_actual_and_expected_error_and_timeout():
    code = ADD_BUGGY + "def div(a, b):\n    return a / b\ndef spin():\n    while True:\n        pass\n"
    report = run_asserts(code, ["assert add(1, 2) == 3", "assert add(2, 2) == 4",
                                "assert div(1, 0) == 1", "assert spin() is None",
                                "assert add(0, 0) == 0"], timeout=1)
    kinds = [case.kind for case in report.cases]
    assert kinds == ["pass", "fail", "error", "timeout", "pass"]
    assert report.cases[1].message == "add(2, 2) returned 5, expected 4"
    assert report.cases[2].message == "ZeroDivisionError: division by zero"
    assert report.cases[2].line == 4
    assert report.timed_out and not report.all_passed
    text = report.feedback()
    assert text.startswith("3 of 5 tests failed:")
    assert "add(2, 2) returned 5, expected 4" in text


def test_candidate_prints_do_not_break_the_report():
    code = ADD_OK + "print('{\"kind\": \"pass\"}')\nimport sys\nprint('noise', file=sys.stderr)\n"
    report = run_asserts(code, ["assert add(1, 1) == 3"])
    assert [c.kind for c in report.cases] == ["fail"]


def test_syntax_error_is_reported_with_its_line():
    report = run_asserts("def add(a, b:\n    return a\n", ["assert add(1, 2) == 3"])
    assert not report.all_passed
    assert report.error == "SyntaxError: '(' was never closed at line 1"
    assert report.feedback().startswith("The code could not be run: SyntaxError")


def test_non_equality_asserts_degrade_gracefully():
    report = run_asserts(ADD_BUGGY, ["assert add(2, 2) < 5", "assert not add(0, 0) == 0",
                                     "assert isinstance(add(1, 1), str)"])
    messages = [case.message for case in report.cases]
    assert messages[0] == "add(2, 2) returned 5, expected it < 5"
    assert messages[1] == "add(0, 0) == 0 returned True, expected falsy"
    assert messages[2] == "isinstance(add(1, 1), str) returned False, expected truthy"


def test_a_crash_of_the_whole_run_marks_the_remaining_tests():
    code = "import os\ndef boom():\n    os._exit(3)\n" + ADD_OK
    report = run_asserts(code, ["assert add(1, 1) == 2", "assert boom() is None",
                                "assert add(2, 2) == 4"])
    assert [c.kind for c in report.cases] == ["pass", "error", "error"]
    assert "ended early (exit 3)" in report.cases[1].message
    assert report.cases[2].message.startswith("not run")


def test_check_function_failure_names_the_call_with_values():
    check = ("def check(candidate):\n    assert candidate(1, 2) == 3\n"
             "    for x in range(3):\n        assert candidate(x, 2) == x + 2\n")
    report = run_check(ADD_BUGGY, check, "add")
    assert report.cases[0].kind == "fail"
    assert report.cases[0].message == "add(2, 2) returned 5, expected 4"
    assert report.cases[0].line == 4
    assert run_check(ADD_OK, check, "add").all_passed


def test_check_reports_exceptions_timeouts_and_missing_entry_point():
    check = "def check(candidate):\n    assert candidate(1, 0) == 0\n"
    error = run_check("def f(a, b):\n    return a // b\n", check, "f")
    assert error.cases[0].kind == "error"
    assert error.cases[0].message == "ZeroDivisionError: integer division or modulo by zero"
    assert error.cases[0].line == 2
    hang = run_check("def f(a, b):\n    while True:\n        pass\n", check, "f", timeout=1)
    assert hang.cases[0].kind == "timeout" and hang.timed_out
    missing = run_check("def g():\n    pass\n", check, "f")
    assert missing.error == "the code defines no function 'f'"


def test_pytest_file_per_test_outcomes():
    tests = ("from solution import add\nimport time\n\n"
             "def test_ok():\n    assert add(1, 2) == 3\n\n"
             "def test_bad():\n    assert add(2, 2) == 4\n\n"
             "def test_err():\n    add(1, 2) / 0\n\n"
             "def test_hang():\n    time.sleep(60)\n")
    report = run_pytest(ADD_BUGGY, tests, timeout=2)
    by_name = {case.name.split("::")[1]: case for case in report.cases}
    assert by_name["test_ok"].kind == "pass"
    assert by_name["test_bad"].kind == "fail"
    assert by_name["test_bad"].message == "add(2, 2) returned 5, expected 4"
    assert by_name["test_err"].kind == "error"
    assert by_name["test_err"].message.startswith("ZeroDivisionError")
    assert by_name["test_hang"].kind == "timeout"
    assert report.passed == 1 and report.failed == 3


def test_pytest_with_broken_code_reports_the_import_error():
    report = run_pytest("def add(a, b:\n    pass\n", "from solution import add\n"
                        "def test_a():\n    assert add(1, 1) == 2\n", timeout=10)
    assert not report.all_passed
    assert "SyntaxError" in (report.error or "")


def test_bare_expression_lines_are_asserted_not_just_evaluated():
    from codeloop.sandbox.testrun import run_asserts

    report = run_asserts("def add(a, b):\n    return a + b + 1\n",
                         ["add(2, 2) == 4", "assert add(0, 0) == 1"], timeout=5)
    assert report.passed == 1 and report.failed == 1
    failing = next(c for c in report.cases if not c.passed)
    assert "add(2, 2) returned 5, expected 4" in failing.message
