"""A task of plain functions, end to end on the real build (git, sandbox, pytest) with a
scripted model that makes the 1.5B's two mistakes of inventory I2 at 48067b3: its tests
compare a call with `pytest.raises(ValueError)` (build/raises_blocks.py), its code puts the
promised functions in a class that never uses its instance (build/lifted_functions.py).
Before either mend the task was blocked; with them it merges, and the mended test still
fails code that does not raise."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

TASK = {"tech_stack": "python-api", "tasks": [{
    "id": "P1", "description": (
        "Shipping costs in app.shipping: function parcel_cost(weight, rate) -> weight * rate "
        "rounded to 2 decimals, and function with_surcharge(cost, percent) -> cost raised by "
        "percent per cent, rounded to 2 decimals; with_surcharge raises ValueError when "
        "percent is below 0"),
    "implementation_details": "Plain functions, use round(value, 2).",
    "depends_on": [], "keywords": ["shipping"]}]}
TESTS = '''import pytest
from app.shipping import parcel_cost, with_surcharge

def test_parcel_cost():
    assert parcel_cost(2, 1.5) == 3.0

def test_with_surcharge():
    assert with_surcharge(100.0, 10) == 110.0
    assert with_surcharge(100.0, -1) == pytest.raises(ValueError)
'''
IN_A_CLASS = '''class Shipping:
    def parcel_cost(self, weight: float, rate: float) -> float:
        return round(weight * rate, 2)

    def with_surcharge(self, cost: float, percent: float) -> float:
        if percent < 0:
            raise ValueError("percent must not be negative")
        return round(cost * (1 + percent / 100), 2)
'''
NO_CHECK = IN_A_CLASS.replace('''        if percent < 0:
            raise ValueError("percent must not be negative")
''', "")


def test_the_tests_and_the_code_are_mended_and_the_task_merges(build):
    code = file_reply(("app/shipping.py", IN_A_CLASS))
    built = build(TASK, {"task:P1": [reply_with_tests(TESTS), code, *[code] * 8],
                         "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    tests = (built.out / "tests" / "test_shipping.py").read_text()
    assert ("    with pytest.raises(ValueError):\n        with_surcharge(100.0, -1)\n"
            in tests)
    shipping = (built.out / "app" / "shipping.py").read_text()
    assert "\ndef parcel_cost(weight: float, rate: float) -> float:" in shipping
    assert "class Shipping:" in shipping
    progress = "\n".join(built.progress())
    assert "is now `with pytest.raises(ValueError):`" in progress
    assert "never uses its instance" in progress


def test_the_mended_test_still_fails_code_that_does_not_raise(build):
    code = file_reply(("app/shipping.py", NO_CHECK))
    built = build(TASK, {"task:P1": [reply_with_tests(TESTS), *[code] * 9] * 2,
                         "integration": no_wiring()})
    # the code stood by twice: the test it does not meet is the one named and dropped
    # (unmet_tests.py), which only happens because the mended test fails it
    progress = "\n".join(built.progress())
    assert "dropped 1 of 2 tests in tests/test_shipping.py" in progress
    assert "test_with_surcharge" in progress.split("dropped 1 of 2 tests")[1].splitlines()[0]
