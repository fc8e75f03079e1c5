from stats import mean, median, summary


def test_values():
    assert mean([2, 4, 9]) == 5
    assert median([5, 1, 4, 2]) == 3


def test_empty():
    assert mean([]) is None
    assert summary([]) == {"count": 0, "min": None, "max": None, "mean": None,
                           "median": None}
