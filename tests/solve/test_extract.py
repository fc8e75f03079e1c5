"""Code extraction from model replies, and signature compliance."""

from __future__ import annotations

import ast

from codeloop.jobs.extract import code_blocks, extract_code
from codeloop.solve.extract import check_signature, contains_code, join_program, strip_code


def _sig(text: str) -> ast.FunctionDef:
    return ast.parse(text + "\n    ...\n").body[0]


def test_fenced_block_with_prose_around_it():
    reply = "Sure! Here it is:\n```python\ndef add(a, b):\n    return a + b\n```\nIt adds."
    assert extract_code(reply, "add") == "def add(a, b):\n    return a + b\n"


def test_demo_code_after_the_function_is_dropped():
    reply = (
        "```python\nimport math\n\nLIMIT = 10\n\ndef area(r):\n    return math.pi * r * r\n\n"
        "print(area(2))\nresult = area(3)\nassert area(0) == 0\n"
        "if __name__ == '__main__':\n    area(input())\n```"
    )
    code = extract_code(reply, "area")
    assert "import math" in code and "LIMIT = 10" in code and "def area(r):" in code
    for demo in ("print(", "result =", "assert", "__main__", "input("):
        assert demo not in code


def test_missing_fences_take_code_from_first_python_line():
    reply = "The answer is below.\n\ndef double(x):\n    return 2 * x\n\nThis doubles x."
    assert extract_code(reply, "double") == "def double(x):\n    return 2 * x\n"


def test_several_blocks_pick_the_one_defining_the_function_and_its_helpers():
    reply = (
        "```python\ndef helper(x):\n    return x + 1\n```\n"
        "```bash\npython run.py\n```\n"
        "```python\ndef main_fn(x):\n    return helper(x) * 2\n```\n"
        "```python\nprint(main_fn(3))\n```"
    )
    code = extract_code(reply, "main_fn")
    assert code.index("def helper") < code.index("def main_fn")
    assert "print" not in code


def test_later_block_defining_the_function_wins():
    reply = ("```python\ndef f(x):\n    return 1\n```\nWait, corrected:\n"
             "```python\ndef f(x):\n    return 2\n```")
    assert "return 2" in extract_code(reply, "f")


def test_unclosed_fence_from_a_cut_reply_is_still_a_block():
    reply = "```python\ndef f(x):\n    return x\n\ndef g(y):\n    return ("
    assert code_blocks(reply)
    assert extract_code(reply, "f") == "def f(x):\n    return x\n"


def test_decorators_and_comments_are_kept():
    reply = "```py\nimport functools\n\n@functools.cache\ndef fib(n):\n    # base case\n" \
            "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n```"
    code = extract_code(reply, "fib")
    assert "@functools.cache\ndef fib(n):\n    # base case" in code


def test_reply_without_the_function_has_no_usable_code():
    assert extract_code("I cannot help with that.", "f") is None
    assert extract_code("```python\ndef other(x):\n    return x\n```", "f") is None
    assert extract_code("```python\ndef f(x:\n```", "f") is None


def test_signature_match_ignores_annotations_and_defaults():
    expected = _sig("def f(a: int, b: list[int]) -> int:")
    assert check_signature("def f(a, b=None):\n    return 0\n", expected).ok


def test_signature_mismatch_names_the_problem():
    expected = _sig("def count(s: str, ch: str) -> int:")
    wrong_params = check_signature("def count(text, ch):\n    return 0\n", expected)
    assert not wrong_params.ok and "(text, ch)" in wrong_params.problem \
        and "(s, ch)" in wrong_params.problem
    wrong_name = check_signature("def counter(s, ch):\n    return 0\n", expected)
    assert not wrong_name.ok and "no top-level function 'count'" in wrong_name.problem
    extra = check_signature("def count(s, ch, *, strict=False):\n    return 0\n", expected)
    assert not extra.ok
    broken = check_signature("def count(s, ch)\n", expected)
    assert not broken.ok and "does not parse" in broken.problem


def test_nested_function_with_the_name_does_not_count():
    expected = _sig("def f(x):")
    assert not check_signature("def outer():\n    def f(x):\n        return x\n", expected).ok


def test_join_program_puts_the_context_first():
    assert join_program("from typing import List", "def f(): pass\n").startswith(
        "from typing import List\n")
    assert join_program("", "def f(): pass\n") == "def f(): pass\n"


def test_prose_detection():
    prose = ("- Returns the number of vowels in s.\n- Edge case: the empty string gives 0.\n"
             "- Pitfall: uppercase vowels count too; x = 0 is not a trap.")
    assert not contains_code(prose)
    assert contains_code("Use this:\n```python\nreturn 1\n```")
    assert contains_code("1. count = 0\n2. for ch in s:\n3.   ...")
    assert contains_code("def f(s):\n    return len(s)")


def test_strip_code_keeps_the_prose():
    text = "Approach: count them.\n```python\ndef f(): pass\n```\nfor c in s:\nDone."
    stripped = strip_code(text)
    assert "Approach: count them." in stripped and "Done." in stripped
    assert "def f" not in stripped and "for c in s" not in stripped
