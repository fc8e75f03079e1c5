import pytest

from factorial import factorial


def test_factorial():
    assert factorial(0) == 1
    assert factorial(5) == 120


def test_negative():
    with pytest.raises(ValueError):
        factorial(-1)
