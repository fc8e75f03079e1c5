from report import progress, summary


def test_summary():
    assert summary(3, 1) == "3 tests of 4 passed (75.0%)"
    assert summary(1, 0) == "1 test of 1 passed (100.0%)"


def test_progress():
    assert progress(1, 1, width=10) == "[#####.....] 50.0%"
