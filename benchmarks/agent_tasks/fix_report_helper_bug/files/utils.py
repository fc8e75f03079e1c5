"""Small formatting helpers shared by the reports."""


def plural(count: int, word: str) -> str:
    """'1 test', '3 tests'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def percent(part: int, whole: int) -> float:
    """part as a percentage of whole, rounded to one decimal; 0.0 when whole is 0."""
    if whole == 0:
        return 0.0
    return round(100 * (part // whole), 1)


def bar(fraction: float, width: int = 20) -> str:
    """A text bar: bar(0.5, 10) == '#####.....'."""
    filled = round(fraction * width)
    return "#" * filled + "." * (width - filled)
