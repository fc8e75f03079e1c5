"""Tests for math-tasks.json.

The solve job writes one candidate to `solution.py` beside this file and runs only the tests
of the task at hand (`test_<task_id>_*`), so each test imports its function when it runs.
"""

import importlib

import pytest


def _f(name):
    return getattr(importlib.import_module("solution"), name)


# is_prime ----------------------------------------------------------------------------------

def test_is_prime_small_primes():
    is_prime = _f("is_prime")
    assert all(is_prime(p) is True for p in (2, 3, 5, 7, 11, 13, 97))


def test_is_prime_composites():
    is_prime = _f("is_prime")
    assert all(is_prime(n) is False for n in (4, 6, 9, 15, 21, 25, 91, 561))


def test_is_prime_below_two():
    is_prime = _f("is_prime")
    assert all(is_prime(n) is False for n in (1, 0, -1, -7))


def test_is_prime_large_prime():
    is_prime = _f("is_prime")
    assert is_prime(1_000_000_007) is True
    assert is_prime(999_999_999_989) is True


def test_is_prime_large_semiprime():
    assert _f("is_prime")(999_983 * 999_979) is False


# fibonacci ---------------------------------------------------------------------------------

def test_fibonacci_base_cases():
    fibonacci = _f("fibonacci")
    assert (fibonacci(0), fibonacci(1), fibonacci(2)) == (0, 1, 1)


def test_fibonacci_first_ten():
    assert [_f("fibonacci")(i) for i in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]


def test_fibonacci_large_values():
    fibonacci = _f("fibonacci")
    assert fibonacci(50) == 12586269025
    assert fibonacci(100) == 354224848179261915075


def test_fibonacci_thousand_is_fast_and_consistent():
    fibonacci = _f("fibonacci")
    value = fibonacci(1000)
    assert len(str(value)) == 209
    assert value == fibonacci(999) + fibonacci(998)


def test_fibonacci_negative_raises():
    with pytest.raises(ValueError):
        _f("fibonacci")(-1)


# digit_sum ---------------------------------------------------------------------------------

def test_digit_sum_basic():
    digit_sum = _f("digit_sum")
    assert digit_sum(123) == 6
    assert digit_sum(9875) == 29


def test_digit_sum_ignores_sign():
    assert _f("digit_sum")(-123) == 6


def test_digit_sum_zero():
    assert _f("digit_sum")(0) == 0


def test_digit_sum_big_numbers():
    digit_sum = _f("digit_sum")
    assert digit_sum(10**20) == 1
    assert digit_sum(int("9" * 50)) == 450


# collatz_steps -----------------------------------------------------------------------------

def test_collatz_steps_start_at_one():
    assert _f("collatz_steps")(1) == 0


def test_collatz_steps_small():
    collatz_steps = _f("collatz_steps")
    assert collatz_steps(2) == 1
    assert collatz_steps(6) == 8
    assert collatz_steps(7) == 16


def test_collatz_steps_long_chain():
    assert _f("collatz_steps")(27) == 111


def test_collatz_steps_power_of_two():
    assert _f("collatz_steps")(2**20) == 20


def test_collatz_steps_rejects_below_one():
    collatz_steps = _f("collatz_steps")
    with pytest.raises(ValueError):
        collatz_steps(0)
    with pytest.raises(ValueError):
        collatz_steps(-5)


# to_roman ----------------------------------------------------------------------------------

def test_to_roman_additive():
    to_roman = _f("to_roman")
    assert [to_roman(n) for n in (1, 3, 8, 30)] == ["I", "III", "VIII", "XXX"]


def test_to_roman_subtractive_pairs():
    to_roman = _f("to_roman")
    assert [to_roman(n) for n in (4, 9, 40, 90, 400, 900)] == ["IV", "IX", "XL", "XC", "CD", "CM"]


def test_to_roman_mixed():
    to_roman = _f("to_roman")
    assert to_roman(1994) == "MCMXCIV"
    assert to_roman(2024) == "MMXXIV"
    assert to_roman(444) == "CDXLIV"


def test_to_roman_largest():
    assert _f("to_roman")(3999) == "MMMCMXCIX"


def test_to_roman_out_of_range_raises():
    to_roman = _f("to_roman")
    for bad in (0, 4000, -1):
        with pytest.raises(ValueError):
            to_roman(bad)
