"""A solution written under another name than the task's is renamed to it, only when that
is unambiguous and safe; otherwise the model is told the exact name it must use."""

from __future__ import annotations

import ast

from codeloop.solve.naming import renamed_solution
from codeloop.solve.state import CORRECT
from codeloop.solve.tasks import Task

MISSPELT = """Here is the function:

```python
import math

def lateralsurface_cylinder(r, h):
    return 2 * math.pi * r * h

print(lateralsurface_cylinder(10, 5))
```
"""


def expected(signature: str) -> ast.FunctionDef:
    return ast.parse(signature + ": ...").body[0]


def test_a_lone_misnamed_function_is_renamed_with_its_recursive_calls():
    reply = ("```python\ndef fact_rec(n):\n    return 1 if n < 2 else n * fact_rec(n - 1)\n"
             "\nassert fact_rec(3) == 6\n```")
    renamed = renamed_solution(reply, expected("def factorial(n)"))
    assert renamed is not None and renamed.written_as == "fact_rec"
    assert "def factorial(n):" in renamed.code and "n * factorial(n - 1)" in renamed.code
    assert "fact_rec" not in renamed.code and "assert" not in renamed.code
    namespace: dict = {}
    exec(renamed.code, namespace)  # noqa: S102 - our own literal above
    assert namespace["factorial"](5) == 120


def test_a_helper_the_solution_calls_keeps_its_name():
    reply = ("```python\ndef is_even(x):\n    return x % 2 == 0\n\n"
             "def count_evens_in(xs):\n    return sum(1 for x in xs if is_even(x))\n```")
    renamed = renamed_solution(reply, expected("def count_evens(xs)"))
    assert renamed is not None and renamed.written_as == "count_evens_in"
    assert "def is_even(x):" in renamed.code and "def count_evens(xs):" in renamed.code


def test_nothing_is_renamed_when_it_would_be_a_guess_or_break_the_code():
    two_roots = "```python\ndef f1(x):\n    return x\n\ndef f2(x):\n    return -x\n```"
    assert renamed_solution(two_roots, expected("def g(x)")) is None
    wrong_arity = "```python\ndef g2(x, y):\n    return x + y\n```"
    assert renamed_solution(wrong_arity, expected("def g(x)")) is None
    # `sum` wanted, and the code calls the builtin sum: renaming would make it recurse.
    uses_name = "```python\ndef sum_div(a, b):\n    return sum(range(a, b))\n```"
    assert renamed_solution(uses_name, expected("def sum(a, b)")) is None
    assert renamed_solution("no code at all", expected("def g(x)")) is None


def test_solve_runs_the_renamed_draft_and_says_so_in_the_code(run):
    task = Task(task_id="cyl", signature="def lateralsuface_cylinder(r, h)",
                docstring="Lateral surface area of a cylinder.",
                examples="round(lateralsuface_cylinder(1, 1), 2) == 6.28",
                context="import math", parameter_names=False)
    r = run(task, [MISSPELT])
    assert r.result.verdict == CORRECT and len(r.llm.calls) == 1
    assert "def lateralsuface_cylinder(r, h):" in r.result.code
    assert "The model named this function `lateralsurface_cylinder`" in r.result.code


def test_a_reply_with_no_such_function_tells_the_model_the_exact_name(run):
    task = Task(task_id="cnt", signature="def check_occurences(xs)",
                docstring="Count each item.", examples="check_occurences([1, 1]) == {1: 2}",
                parameter_names=False)
    two = "```python\ndef a(xs):\n    return {}\n\ndef b(xs):\n    return {}\n```"
    right = "```python\ndef check_occurences(xs):\n    return {x: xs.count(x) for x in xs}\n```"
    r = run(task, [two, "Count them.", right])
    assert r.result.verdict == CORRECT
    assert ("the reply held no usable Python code defining the function `check_occurences` "
            "(keep exactly this name)") in r.prompts()[1]
