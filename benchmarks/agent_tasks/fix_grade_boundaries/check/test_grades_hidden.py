import pytest
from grades import grade_counts, letter_grade


@pytest.mark.parametrize("score, letter", [
    (100, "A"), (90, "A"), (89.99, "B"), (80, "B"), (70, "C"), (69.5, "D"), (60, "D"),
    (59.99, "F"), (0, "F")])
def test_letter_grade(score, letter):
    assert letter_grade(score) == letter


@pytest.mark.parametrize("bad", [-1, 100.5, 1000])
def test_out_of_range(bad):
    with pytest.raises(ValueError):
        letter_grade(bad)


def test_counts_at_boundaries():
    assert grade_counts([90, 80, 70, 60, 59]) == {"A": 1, "B": 1, "C": 1, "D": 1, "F": 1}
    assert grade_counts([]) == {"A": 0, "B": 0, "C": 0, "D": 0, "F": 0}
