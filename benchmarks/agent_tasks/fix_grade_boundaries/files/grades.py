"""Letter grades for exam scores from 0 to 100."""

BOUNDARIES = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def letter_grade(score: float) -> str:
    """'A' from 90, 'B' from 80, 'C' from 70, 'D' from 60, else 'F'."""
    if not 0 <= score <= 100:
        raise ValueError(f"score out of range: {score}")
    for lowest, letter in BOUNDARIES:
        if score > lowest:
            return letter
    return "F"


def grade_counts(scores: list[float]) -> dict[str, int]:
    counts = {letter: 0 for _, letter in BOUNDARIES}
    counts["F"] = 0
    for score in scores:
        counts[letter_grade(score)] += 1
    return counts
