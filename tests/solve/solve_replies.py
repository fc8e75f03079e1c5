"""Scripted replies shared by the solve tests."""

ANALYSIS = ("- Return a + b.\n- Inputs are two integers; the output is an integer.\n"
            "- Edge cases: zero and negative numbers.")
PLAN = "1. Add the two numbers.\n2. Return the sum.\nComplexity: constant time."
RIGHT = "Here is the function:\n```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```"
WRONG = "```python\ndef add(a: int, b: int) -> int:\n    return a + b + 1\n```"
HALF_WRONG = ("```python\ndef add(a: int, b: int) -> int:\n"
              "    return a + b if a else a + b + 1\n```")
