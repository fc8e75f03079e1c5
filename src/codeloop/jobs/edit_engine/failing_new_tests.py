"""Tests the turn wrote that fail against the code they were asked to test, dropped.

When a request asks for tests of existing code, the code is the reference: a new test that
fails on it expects something the code does not do. TestGen-LLM (Meta, 2024) keeps only the
generated tests that build and pass for the same reason. Measured on the agent suite (1.5B,
write_slugify_tests): a reply wrote four tests, one expecting 'nospecialcharacters' where
slugify gives 'no-special-characters'; no repair round changed it, and the tools ran to their
budget. So, when no round passed, the failing functions of the test files this turn created
are taken out, when at least one test is left in each; the answer names them, so a test
that found a real bug is not lost silently.
"""

from __future__ import annotations

import ast
import re

from codeloop.jobs.definitions import definition_span

# pytest -q's summary line for a failed test function: FAILED path::name[params] - reason
_FAILED = re.compile(r"^FAILED ([\w./-]+\.py)::(\w+)(?:\[[^\]\n]*\])?(?: - |$)", re.MULTILINE)


def failing_tests(output: str) -> dict[str, set[str]]:
    """{test file: names of its failing top-level test functions} from pytest's output."""
    found: dict[str, set[str]] = {}
    for path, name in _FAILED.findall(output):
        found.setdefault(path, set()).add(name)
    return found


def without_functions(source: str, names: set[str], *, keep_one: bool = True) -> str | None:
    """`source` without the top-level functions `names` (decorators included); None when it
    does not parse, or when no test function would be left and `keep_one`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    functions = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    dropped = [n for n in functions if n.name in names]
    kept = [n for n in functions if n.name.startswith("test") and n.name not in names]
    if not dropped or (keep_one and not kept):
        return None
    lines = source.splitlines(keepends=True)
    for node in sorted(dropped, key=lambda n: n.lineno, reverse=True):
        first, end = definition_span(node)
        del lines[first:end]
    return re.sub(r"\n{4,}", "\n\n\n", "".join(lines)).rstrip("\n") + "\n"


def pruned_new_tests(output: str, created: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """({path: new text}, ["path::name", ...]) for the test files in `created` (path: text,
    files this turn made) whose failing functions can go with a test left in each."""
    texts: dict[str, str] = {}
    dropped: list[str] = []
    for path, names in failing_tests(output).items():
        if path not in created:
            continue
        text = without_functions(created[path], names)
        if text is not None:
            texts[path] = text
            dropped += [f"{path}::{name}" for name in sorted(names)]
    return texts, dropped


def drop_failing_new_tests(node, plan, shown: dict[str, str], created: dict[str, str],
                           tests: tuple[bool, str], command: str) -> list[str]:
    """Write the test files without their failing functions through `node` (the
    ContextFirst node: its writes go through the workspace tools) and run the tests again:
    the names dropped when they now pass; otherwise the files go back as they were and
    nothing is dropped. `shown` is updated in place."""
    texts, dropped = pruned_new_tests(tests[1], created)
    if not texts:
        return []
    written, _ = node.write_files(texts, plan)
    shown.update({p: texts[p] for p in written})
    if written and node.run_tests(command)[0]:
        return dropped
    node.write_files({p: created[p] for p in written}, plan)
    shown.update({p: created[p] for p in written})
    return []
