"""A function given back empty (its docstring only, or `pass`) is named as such to the model:
not run into "returned None" failures, and not made by extraction out of a block whose one
unclosed bracket made it drop the function's body."""

from __future__ import annotations

import pytest

from codeloop.solve.extract import empty_function, unparsable_definition
from codeloop.solve.stage import solution
from codeloop.solve.state import CORRECT
from codeloop.solve.tasks import Task

DOC = '    """Sort by the sum of digits."""\n'
# The 1.5B model's one-shot reply to HumanEval/145, shortened: its one line lacks a `)`.
UNCLOSED = ("```python\ndef order(nums):\n" + DOC +
            "    return sorted(nums, key=lambda x: (sum(map(int, str(abs(x)))), x)\n```\n")
STUB = "```python\ndef order(nums):\n" + DOC + "    # Your implementation goes here\n    pass\n```"
RIGHT = ("```python\ndef order(nums):\n" + DOC +
         "    return sorted(nums, key=lambda x: sum(map(int, str(abs(x)))))\n```")


def task() -> Task:
    return Task(task_id="order", signature="def order(nums)", docstring="Sort by digit sum.",
                examples="order([30, 12, 4]) == [30, 12, 4]\norder([5, 11]) == [11, 5]")


def test_empty_bodies_are_told_apart_from_written_ones():
    assert empty_function("def f(x):\n    '''doc'''\n", "f")
    assert empty_function("def f(x):\n    '''doc'''\n    pass\n", "f")
    assert empty_function("def f(x):\n    ...\n", "f")
    assert not empty_function("def f(x):\n    '''doc'''\n    return None\n", "f")
    assert not empty_function("def g(x):\n    pass\n", "f")
    assert not empty_function("def f(x:\n", "f")


def test_a_block_cut_to_its_docstring_is_given_as_written():
    code = solution(UNCLOSED, task())
    assert code is not None and "return sorted(nums" in code
    assert unparsable_definition(UNCLOSED, "order") == code
    # A genuine stub parses as written: it stays the stub, the review names it.
    assert unparsable_definition(STUB, "order") is None
    assert "pass" in solution(STUB, task())


@pytest.mark.parametrize(("reply", "told"), [
    (UNCLOSED, "SyntaxError: '(' was never closed"),
    (STUB, "the function `order` has no implementation"),
], ids=["syntax-error", "stub"])
def test_solve_tells_the_model_what_is_wrong_not_a_none(run, reply, told):
    r = run(task(), [reply, "Sort by the digit sum.", RIGHT])
    assert r.result.verdict == CORRECT
    planning_prompt = r.prompts()[1]
    assert told in planning_prompt
    assert "returned None" not in planning_prompt
    # What the user sees for that draft: the one problem, said once.
    draft_feedback = r.result.attempts[0]["feedback"]
    assert told in draft_feedback and len(draft_feedback.splitlines()) == 1


def test_an_empty_function_that_passes_its_tests_is_correct(run):
    noop = Task(task_id="noop", signature="def noop(x)", docstring="Do nothing.",
                examples="noop(3) is None")
    r = run(noop, ["```python\ndef noop(x):\n    pass\n```"])
    assert r.result.verdict == CORRECT and len(r.llm.calls) == 1

