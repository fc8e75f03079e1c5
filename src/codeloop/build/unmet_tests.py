"""A task's own tests that its code could not meet, dropped when they are at most half.

The model writes a task's tests first and then its code. When the code rounds are spent
(or they and the test repair round all stand by what they wrote, the code sent back
unchanged as right) and at most half of the task's own test functions still fail while the
rest pass, those tests are more likely wrong than the code: TestGen-LLM (Meta, 2024) keeps only generated tests that
pass for the same reason, and the agent drops the failing tests it wrote itself
(jobs/edit_engine/failing_new_tests.py). Measured on the 1.5B (build benchmark, bookmarks):
B1's tests had 2 passing and 1 failing, the code and the test repair were sent back
unchanged, the retry wrote new tests that reached outside the task, and all three tasks
were blocked (0 of 11 acceptance tests); inventory's I2 ended its rounds with 9 of 15
passing, the code still changing, and was blocked with its dependants. Only the task's own file is pruned, never a test
on main; the task's outcome names each dropped test, so a test that found a real bug is
not lost silently.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from codeloop.build.edit_site import StackSite
from codeloop.build.test_scope import collected_tests
from codeloop.jobs.edit_engine.failing_new_tests import failing_tests, without_functions


def test_functions(source: str) -> list[str]:
    """The names of the top-level test functions of a test file, not its fixtures (none
    when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    return [n.name for n in collected_tests(tree) if not isinstance(n, ast.ClassDef)]


def drop_unmet_tests(site: StackSite, test_path: str, output: str,
                     say: Callable[[str], None], why: str, *, anchored: bool = False) -> list[str]:
    """Drop the failing functions of `test_path` when they are at most half of its tests
    (one is left at least; any number, all of them too, when `anchored`: the examples the task's text states
    are in the run and pass, stated_examples.py) and every failure of the run (`output`,
    pytest's) is one of them; the names dropped when the stack's tests then pass, else []
    with the file as it was."""
    failing = failing_tests(output)
    mine = failing.pop(test_path, set())
    text = site.read(test_path)
    if not mine or failing or text is None or "ERROR " in output:
        return []  # a failure elsewhere (main's tests, a collection error): not the tests'
    names = test_functions(text)
    if not set(mine) <= set(names) or (2 * len(mine) > len(names) and not anchored):
        return []
    # anchored, the stated examples beside are tests enough: the own file may lose them all
    # (the 1.5B's shortener S1 at 59a3c48: one test_encode asserting made-up codes, right
    # code, the cap reached before any other test was written)
    pruned = without_functions(text, set(mine), keep_one=not anchored)
    if pruned is None or site.write(test_path, pruned) is not None:
        return []
    if site.check().passed:
        dropped = sorted(mine)
        say(f"dropped {len(dropped)} of {len(names)} tests in {test_path} {why}: "
            f"{', '.join(dropped)}")
        return dropped
    site.write(test_path, text)
    return []
