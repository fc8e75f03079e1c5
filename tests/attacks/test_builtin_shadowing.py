"""The candidate's top-level names are what the tests call, so a name that hid a builtin the
tests use made a wrong answer pass: `def set(*a): return 0` turned
`assert set(f(x)) == set(y)` into 0 == 0, and `def abs(x): return 0` passed HumanEval's
`assert abs(candidate(x) - y) < 1e-6` (an outside audit, 2026-11-27). Each forgery below
passed before the fix; the honest uses after them must keep working."""

from __future__ import annotations

import pytest

from codeloop.bench.datasets import Problem
from codeloop.bench.scoring import score
from codeloop.sandbox.testrun import run_asserts, run_check, run_pytest

WRONG = "def similar(a, b):\n    return 0\n"
# Each builtin, the candidate's stand-in for it, and a test that only that stand-in passes.
SHADOWS = {
    "set": ("def set(*args, **kwargs):\n    return 0\n",
            "set(similar((3, 4, 5), (5, 7, 4))) == set((4, 5))"),
    "sorted": ("def sorted(*args, **kwargs):\n    return 0\n",
               "sorted(similar((1, 2), (2, 1))) == sorted([1, 2])"),
    "len": ("len = lambda *args: 2\n", "len(similar((1, 2), (2, 1))) == 2"),
    "abs": ("def abs(x):\n    return 0\n", "abs(similar(1, 2) - 0.5) < 1e-6"),
    "all": ("def all(x):\n    return True\n", "all(similar([1], [1]))"),
    "isinstance": ("def isinstance(*args):\n    return True\n",
                   "isinstance(similar(1, 1), tuple)"),
}


def _never_passes(report) -> None:
    assert report.passed == 0, report.cases
    assert report.harness_error is None, report.harness_error


@pytest.mark.parametrize("name", SHADOWS)
def test_a_builtin_the_asserts_use_cannot_be_replaced(name):
    stand_in, test = SHADOWS[name]
    _never_passes(run_asserts(WRONG + stand_in, [f"assert {test}"], timeout=3,
                              entry_point="similar"))


@pytest.mark.parametrize("name", SHADOWS)
def test_a_builtin_the_check_uses_cannot_be_replaced(name):
    stand_in, test = SHADOWS[name]
    check = f"def check(candidate):\n    assert {test.replace('similar(', 'candidate(')}\n"
    _never_passes(run_check(WRONG + stand_in, check, "similar", timeout=3))


def test_a_star_import_of_the_module_does_not_bring_its_builtins():
    test = ("from solution import *\n\n"
            "def test_similar():\n    assert set(similar((3, 4, 5), (5, 7, 4))) == {4, 5}\n")
    _never_passes(run_pytest(WRONG + SHADOWS["set"][0], test, timeout=5))


def test_a_module_cannot_stand_in_for_another_under_its_name():
    # `import cmath as math`: the tests' math is the real one, or none at all.
    code = "import cmath as math\ndef area(r):\n    return 3.0 * r * r\n"
    report = run_asserts(code, ["assert math.isclose(area(1), 3.14159, rel_tol=1e-3)"],
                         timeout=3, entry_point="area")
    _never_passes(report)


# ---- what stays legitimate ------------------------------------------------------------------
def test_the_function_under_test_may_have_a_builtins_name():
    # MBPP/126 asks for `def sum(a, b)`; its tests call sum(10, 15).
    code = ("def sum(a, b):\n    total = 0\n    for i in range(1, min(a, b)):\n"
            "        if a % i == 0 and b % i == 0:\n            total += i\n    return total\n")
    report = run_asserts(code, ["assert sum(10, 15) == 6", "assert sum(4, 6) == 3"],
                         timeout=3, entry_point="sum")
    assert report.all_passed, report.cases
    problem = Problem(task_id="Mbpp/126", dataset="mbpp", prompt="", entry_point="sum",
                      asserts=("assert sum(10, 15) == 6", "assert sum(100, 150) == 93"))
    assert score(problem, code).passed
    # Not named as the function under test, it is not the tests' sum.
    assert not run_asserts(code, ["assert sum(10, 15) == 6"], timeout=3).all_passed


def test_the_candidates_imports_and_helpers_stay_visible_to_the_tests():
    code = ("import math\n\ndef helper(x):\n    return x * 2\n\n"
            "def area(r):\n    return math.pi * r * r\n")
    report = run_asserts(code, ["assert math.isclose(area(1), 3.14159, rel_tol=1e-3)",
                                "assert helper(2) == 4"], timeout=3, entry_point="area")
    assert report.all_passed, report.cases
    test = "from solution import format\n\ndef test_format():\n    assert format(2) == '2!'\n"
    assert run_pytest("def format(x):\n    return f'{x}!'\n", test, timeout=5).all_passed
