import pytest
from stats import mean, median, summary

EMPTY = {"count": 0, "min": None, "max": None, "mean": None, "median": None}


@pytest.mark.parametrize("values", [None, [], ()])
def test_nothing_gives_none(values):
    assert mean(values) is None
    assert median(values) is None
    assert summary(values) == EMPTY


def test_one_value():
    assert summary([7]) == {"count": 1, "min": 7, "max": 7, "mean": 7, "median": 7}


def test_zeros_are_values_not_missing():
    assert mean([0, 0]) == 0 and median([0]) == 0
    assert summary([0, -2]) == {"count": 2, "min": -2, "max": 0, "mean": -1, "median": -1}


def test_median_odd_and_tuple_input():
    assert median([3, 1, 2]) == 2
    assert summary((1.5, 2.5)) == {"count": 2, "min": 1.5, "max": 2.5, "mean": 2.0,
                                   "median": 2.0}
