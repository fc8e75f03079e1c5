import pytest
from report import progress, summary
from utils import bar, percent, plural


@pytest.mark.parametrize("part, whole, expected", [
    (3, 4, 75.0), (1, 3, 33.3), (2, 3, 66.7), (0, 5, 0.0), (5, 5, 100.0), (0, 0, 0.0),
    (7, 8, 87.5)])
def test_percent(part, whole, expected):
    assert percent(part, whole) == expected


def test_summary_more():
    assert summary(0, 0) == "0 tests of 0 passed (0.0%)"
    assert summary(2, 1) == "2 tests of 3 passed (66.7%)"
    assert summary(0, 4) == "0 tests of 4 passed (0.0%)"


def test_progress_more():
    assert progress(3, 1, width=8) == "[######..] 75.0%"
    assert progress(0, 0, width=4) == "[....] 0.0%"


def test_other_helpers_unchanged():
    assert plural(2, "file") == "2 files" and plural(1, "file") == "1 file"
    assert bar(0.25, 4) == "#..."
