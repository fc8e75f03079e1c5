import pytest

from codeloop.quality.grades import complexity_grade, mi_grade, severity_rank


@pytest.mark.parametrize(("mi", "grade"), [
    (100.0, "Excellent"), (80.0, "Excellent"), (79.99, "Good"), (60.0, "Good"),
    (59.99, "Moderate"), (40.0, "Moderate"), (39.99, "Poor"), (0.0, "Poor"),
])
def test_mi_grade_boundaries(mi, grade):
    assert mi_grade(mi) == grade


@pytest.mark.parametrize(("cc", "grade"), [
    (1, "Simple"), (5, "Simple"), (6, "Moderate"), (10, "Moderate"), (11, "Complex"),
    (40, "Complex"),
])
def test_complexity_grade_boundaries(cc, grade):
    assert complexity_grade(cc) == grade


def test_severity_rank_orders_and_ignores_case():
    assert severity_rank("LOW") < severity_rank("medium") < severity_rank("High")
    assert severity_rank("UNDEFINED") == 0
