from grades import grade_counts, letter_grade


def test_exact_boundary_gets_the_higher_grade():
    assert letter_grade(90) == "A"
    assert letter_grade(80) == "B"


def test_counts():
    assert grade_counts([95, 85, 60, 10]) == {"A": 1, "B": 1, "C": 0, "D": 1, "F": 1}
