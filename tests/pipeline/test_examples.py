"""Examples and docstring examples become test expressions."""

from __future__ import annotations

from codeloop.pipeline.examples import parse_examples, task_assertions


def test_expression_lines():
    text = "count_vowels('Hello') == 2\ncount_vowels('') == 0\n"
    assert parse_examples(text, "count_vowels") == ["count_vowels('Hello') == 2",
                                                    "count_vowels('') == 0"]


def test_doctest_lines_with_multi_line_values_and_comments():
    text = """
    >>> sort_nums([3, 1,
    ...  2])
    >>> sort_nums([3, 1])  # two items
    [1,
     3]
    >>> sort_nums([])
    []
    """
    assert parse_examples(text, "sort_nums") == ["sort_nums([3, 1]) == [1, 3]",
                                                 "sort_nums([]) == []"]


def test_arrow_and_returns_comment_forms():
    text = ("will_it_fly([3], 5) ➞ True  # balanced\n"
            "iscube(64) ==> True\n"
            'to_bin(15)   # returns "db1111db"\n')
    assert parse_examples(text, "will_it_fly") == ["will_it_fly([3], 5) == True"]
    assert parse_examples(text, "iscube") == ["iscube(64) == True"]
    assert parse_examples(text, "to_bin") == ['to_bin(15) == "db1111db"']


def test_prose_and_foreign_names_are_not_tests():
    text = ("is_happy(abcd) => True\nis_simple_power(1, 4) => true\n"
            "fib4(n) == fib4(n - 1) + 1\nThe function f(x) returns 3.\nf(2)\n")
    assert parse_examples(text, "is_happy") == []
    assert parse_examples(text, "is_simple_power") == []
    assert parse_examples(text, "fib4") == []
    assert parse_examples(text, "f") == []


def test_print_doctest_compares_the_text():
    assert parse_examples(">>> print(greet('Bo'))\nHi Bo", "greet") == []  # not a value
    assert parse_examples(">>> print(size(3))\n9", "size") == ["str(size(3)) == '9'"]


def test_task_assertions_join_examples_and_docstring_without_duplicates():
    doc = "Add.\n>>> add(1, 2)\n3\n>>> add(helper(1), 1)\n3"
    got = task_assertions("add(1, 2) == 3\nadd(0, 0) == 0", doc, "add",
                          context="def helper(x):\n    return x + 1\n")
    assert got == ["add(1, 2) == 3", "add(0, 0) == 0", "add(helper(1), 1) == 3"]
