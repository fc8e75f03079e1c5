"""A reply that sends the tests back as the code: the test file is not shown again.

Measured on the 1.5B (build benchmark at 48067b3): asked for app/routes.py with the task's
tests in the prompt, shortener S4 sent those tests back as app/routes.py in all four code
rounds (four minutes of its graph's twelve; told each time that they were tests, two replies
alternating), and bookmarks B3 did so twice before writing routes. What the model copies
is what the prompt shows it; once a reply for a file to write is mostly lines of a test
file, that test file is left out of the later prompts (the request still says what to
write, and the test output, once there is code, quotes the lines that fail).
"""

from __future__ import annotations

from codeloop.jobs.request_files import is_test_path

SHARE = 0.6  # of the reply's lines found in the test file
MIN_LINES = 5


def copied_tests(changes: dict[str, str], shown: dict[str, str], spec: list[str],
                 targets: list[str]) -> dict[str, str]:
    """{target: the test file it copies} for each change to a file to write (not a test)
    whose lines are mostly the lines of a test file the prompt showed."""
    found: dict[str, str] = {}
    for path, text in changes.items():
        if path not in targets or is_test_path(path):
            continue
        lines = _lines(text)
        if len(lines) < MIN_LINES:
            continue
        for test in (p for p in spec if is_test_path(p) and p in shown):
            known = set(_lines(shown[test]))
            if sum(line in known for line in lines) >= SHARE * len(lines):
                found[path] = test
                break
    return found


def copied_note(attempt: int, copies: dict[str, str]) -> str:
    pairs = ", ".join(f"{test} as {path}" for path, test in copies.items())
    tests = ", ".join(sorted(set(copies.values())))
    return (f"attempt {attempt} sent the tests back ({pairs}): {tests} is in place and is "
            "not shown again; write the code it calls, as the request describes it")


def _lines(text: str) -> list[str]:
    """The lines that say something (no blank lines, imports or lone brackets)."""
    return [s for line in text.splitlines() if len(s := line.strip()) > 3
            and not s.startswith(("import ", "from "))]
