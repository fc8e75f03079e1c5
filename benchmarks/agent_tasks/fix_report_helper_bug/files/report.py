"""Summary line of a test run."""

from utils import bar, percent, plural


def summary(passed: int, failed: int) -> str:
    total = passed + failed
    rate = percent(passed, total)
    return f"{plural(passed, 'test')} of {total} passed ({rate}%)"


def progress(passed: int, failed: int, width: int = 20) -> str:
    total = passed + failed
    return f"[{bar(percent(passed, total) / 100, width)}] {percent(passed, total)}%"
