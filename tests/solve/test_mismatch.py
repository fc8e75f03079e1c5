"""The failure shown to the model names what differs between the returned and the expected
value, when both are Python literals; anything else is passed on unchanged."""

from __future__ import annotations

import pytest

from codeloop.solve.mismatch import MAX_CHARS, MAX_SPLITS, explain, with_remark
from codeloop.solve.state import CORRECT
from codeloop.solve.tasks import Task


@pytest.mark.parametrize(("got", "want", "remark"), [
    ([[3.0, 4.0]], [(3.0, 4.0)], "the right values, but expected list of tuple, got list of list"),
    (0.5384615384615384, 0.54, "the expected value is this one rounded to 2 decimal places"),
    ([5, -3, -4], [-4, -3, 5], "the right items, in another order"),
    ([1, 2, 3, 4], [1, 3, 4], "not expected 2"),
    ({(3, 4)}, {(4, 5), (3, 4)}, "missing (4, 5)"),
    (["p", " ", "3"], ["p", "3"], "not expected ' '"),
    (None, [1, 2], "expected list of int, got None"),
    (2.3, "2,3", "expected str, got float"),
    ("TgST", "TGST", "the first difference is at index 1: expected 'G', got 'g'"),
    ({"a": 1, "b": 2}, {"a": 1, "b": 3}, "wrong values for keys 'b'"),
    ({"a": 1}, {"a": 1, "c": 2}, "missing keys 'c'"),
])
def test_the_difference_is_named(got, want, remark):
    assert explain(got, want) == remark


@pytest.mark.parametrize(("got", "want"), [
    (24, 288),  # numbers that are not a rounding of each other: the values say it all
    ("Yes", "No"),  # strings with nothing in common at the start
    (True, False),
])
def test_no_remark_when_there_is_nothing_to_add(got, want):
    assert explain(got, want) is None


def test_a_line_is_read_only_when_both_sides_are_literals():
    line = "list_to_float([('3', '4')]) returned [[3.0, 4.0]], expected [(3.0, 4.0)]"
    assert with_remark(line) == line + (
        " (the right values, but expected list of tuple, got list of list)")
    # A call whose argument holds the separators still splits at the right place.
    tricky = "f('a, expected b') returned ['x', 'y'], expected ('x', 'y')"
    assert with_remark(tricky).endswith("(the right values, but expected tuple of str, "
                                        "got list of str)")
    for unchanged in ("f(1) == 2: ZeroDivisionError: division by zero",
                      "f(1) returned <object at 0x7f>, expected 2",
                      "f(1) returned 5, expected it < 3"):
        assert with_remark(unchanged) == unchanged


def test_a_returned_value_too_long_to_read_gets_no_remark():
    huge = "[" + "1, " * MAX_CHARS + "]"
    line = f"f(1) returned {huge}, expected [1]"
    assert with_remark(line) == line
    nested = "[" * 400 + "]" * 400  # would overflow the parser's recursion
    assert with_remark(f"f(1) returned {nested}, expected [1]").endswith("expected [1]")


def test_a_line_full_of_separators_is_tried_a_bounded_number_of_times():
    """Each separator is a way of reading the line; the host tries at most MAX_SPLITS."""
    def line(times: int) -> str:
        return f"f(1) returned ['q'], expected ('q', '{', expected ' * times}')"
    assert with_remark(line(MAX_SPLITS // 2)).endswith(
        "(expected tuple of str, got list of str)")
    assert with_remark(line(MAX_SPLITS + 1)) == line(MAX_SPLITS + 1)


def test_the_refinement_prompt_carries_the_remark(run):
    task = Task(task_id="pairs", signature="def pairs(xs)",
                docstring="Pair each item with its double, as tuples.",
                examples="pairs([1, 2]) == [(1, 2), (2, 4)]")
    lists = "```python\ndef pairs(xs):\n    return [[x, 2 * x] for x in xs]\n```"
    tuples = "```python\ndef pairs(xs):\n    return [(x, 2 * x) for x in xs]\n```"
    r = run(task, [lists, "Build tuples.", lists, tuples])
    assert r.result.verdict == CORRECT
    remark = "(the right values, but expected list of tuple, got list of list)"
    assert remark in r.prompts()[1]  # planning
    assert remark in r.prompts()[3]  # the refinement sample
