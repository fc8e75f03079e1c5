"""Examples and docstring examples become test expressions."""

from __future__ import annotations

from codeloop.docstring_examples.parse import parse_examples, task_assertions


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
    text = ("is_happy(abcd) => True\n"
            "fib4(n) == fib4(n - 1) + 1\nThe function f(x) returns 3.\nf(2)\n"
            "tri(3) = tri(2) + tri(1) + tri(4)\nassert list_sort(['a']) => ['a']\n")
    assert parse_examples(text, "is_happy") == []
    assert parse_examples(text, "fib4") == []
    assert parse_examples(text, "f") == []
    assert parse_examples(text, "tri") == []  # a definition, not a value
    assert parse_examples(text, "sorted_list_sum") == []  # another function's name


def test_docstring_prose_forms_of_call_and_value():
    text = ("is_simple_power(1, 4) => true\n"
            "* sort_array([5]) => [5]\n"
            "for x_or_y(7, 34, 12) == 34\n"
            "choose_num(12, 15) = 14\n"
            "anti_shuffle('Hi') returns 'Hi'\n"
            "multiply(148, 412) should return 16.\n"
            "file_name_check('a.txt') # => 'Yes'\n"
            "file_name_check('1.dll') # => 'No' (it must start with a letter)\n"
            "get_odd_collatz(5) returns [1, 5] # the odd numbers of [5, 16, 8, 4, 2, 1]\n")
    assert parse_examples(text, "is_simple_power") == ["is_simple_power(1, 4) == True"]
    assert parse_examples(text, "sort_array") == ["sort_array([5]) == [5]"]
    assert parse_examples(text, "x_or_y") == ["x_or_y(7, 34, 12) == 34"]
    assert parse_examples(text, "choose_num") == ["choose_num(12, 15) == 14"]
    assert parse_examples(text, "anti_shuffle") == ["anti_shuffle('Hi') == 'Hi'"]
    assert parse_examples(text, "multiply") == ["multiply(148, 412) == 16"]
    assert parse_examples(text, "file_name_check") == ["file_name_check('a.txt') == 'Yes'",
                                                       "file_name_check('1.dll') == 'No'"]
    assert parse_examples(text, "get_odd_collatz") == ["get_odd_collatz(5) == [1, 5]"]


def test_examples_that_name_their_inputs_need_the_parameter_names():
    text = ("For lst = [1,2,3] the output should be 14\n"
            "For s = \"ab#c\", c = \"a\", the result should be ('b#c',False)\n"
            "Example 1:\n    Input: arr = [4, -4], k = 2  \n    Output: [4, 4] # the two largest\n"
            "Input: 3\nOutput: (1, 2)\n"
            "Input: arr = [1], q = 2\nOutput: 5\n"  # q is no parameter: prose
            "For lst = [x, 1] the output should be 3\n")  # not a literal: prose
    # a positional input fits any one-parameter function
    assert parse_examples(text, "f", params=["lst"]) == ["f([1, 2, 3]) == 14", "f(3) == (1, 2)"]
    assert parse_examples(text, "f", params=["s", "c"]) == ["f('ab#c', 'a') == ('b#c',False)"]
    assert parse_examples(text, "f", params=["arr", "k"]) == ["f([4, -4], 2) == [4, 4]"]
    assert parse_examples(text, "f", params=["n"]) == ["f(3) == (1, 2)"]
    assert parse_examples(text, "f") == []  # without the names nothing is guessed


def test_print_doctest_compares_the_text():
    assert parse_examples(">>> print(greet('Bo'))\nHi Bo", "greet") == []  # not a value
    assert parse_examples(">>> print(size(3))\n9", "size") == ["str(size(3)) == '9'"]


def test_task_assertions_join_examples_and_docstring_without_duplicates():
    doc = "Add.\n>>> add(1, 2)\n3\n>>> add(helper(1), 1)\n3"
    got = task_assertions("add(1, 2) == 3\nadd(0, 0) == 0", doc, "add",
                          context="def helper(x):\n    return x + 1\n")
    assert got == ["add(1, 2) == 3", "add(0, 0) == 0", "add(helper(1), 1) == 3"]


def test_a_worked_value_gives_its_result_only_when_the_arithmetic_does():
    text = ('fruits("5 apples and 6 oranges", 19) ->19 - 5 - 6 = 8\n'
            'tri(2) = 1 + (2 / 2) = 2\n'
            'fruits("1 apple", 3) -> 3 - 1 = 5\n'          # wrong arithmetic: not a test
            'fruits("2 apples", 4) -> apples = 2\n'        # prose with an `=`: not a test
            'fruits("2 apples", 4) -> 4 == 2 = 2\n')       # a comparison, not arithmetic
    assert parse_examples(text, "fruits") == ['fruits("5 apples and 6 oranges", 19) == 8']
    assert parse_examples(text, "tri") == ["tri(2) == 2"]


def test_named_inputs_with_a_remark_or_in_a_block_of_lines():
    remark = ('For N = 150, the sum of digits will be 6 the output should be "110".\n'
              'For N = 7, because seven is odd, the output should be "odd".')
    assert parse_examples(remark, "solve", params=["N"]) == [
        'solve(150) == "110"', 'solve(7) == "odd"']
    block = ("Example 1:\n    Input:\n        grid : [[0, 1], [1, 1]]\n"
             "        bucket_capacity : 1\n    Output: 3\n"
             "Example 2:\n    Input:\n        capacity = 2\n        grid = [[1]]\n"
             "    Output: 1\n")
    # Names that differ from the parameters are taken in order (one value each); names
    # that match are taken by name, whatever their order.
    assert parse_examples(block, "fill", params=["grid", "capacity"]) == [
        "fill([[0, 1], [1, 1]], 1) == 3", "fill([[1]], 2) == 1"]
    # A block with a value missing for a parameter is prose.
    assert parse_examples(block, "fill", params=["grid", "capacity", "rows"]) == []
