"""Tests for lists-tasks.json.

The solve job writes one candidate to `solution.py` beside this file and runs only the tests
of the task at hand (`test_<task_id>_*`), so each test imports its function when it runs.
"""

import importlib

import pytest


def _f(name):
    return getattr(importlib.import_module("solution"), name)


# chunk_list --------------------------------------------------------------------------------

def test_chunk_list_even_split():
    assert _f("chunk_list")([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_chunk_list_remainder_goes_last():
    assert _f("chunk_list")([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_chunk_list_size_larger_than_list():
    assert _f("chunk_list")(["a", "b"], 5) == [["a", "b"]]


def test_chunk_list_empty():
    assert _f("chunk_list")([], 3) == []


def test_chunk_list_rejects_size_below_one():
    chunk_list = _f("chunk_list")
    with pytest.raises(ValueError):
        chunk_list([1, 2], 0)
    with pytest.raises(ValueError):
        chunk_list([1, 2], -1)


def test_chunk_list_leaves_input_unchanged():
    data = [1, 2, 3]
    assert _f("chunk_list")(data, 2) == [[1, 2], [3]]
    assert data == [1, 2, 3]


# rotate_list -------------------------------------------------------------------------------

def test_rotate_list_right():
    assert _f("rotate_list")([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]


def test_rotate_list_negative_rotates_left():
    rotate_list = _f("rotate_list")
    assert rotate_list([1, 2, 3, 4, 5], -2) == [3, 4, 5, 1, 2]
    assert rotate_list([1, 2, 3], -4) == [2, 3, 1]


def test_rotate_list_wraps_around():
    rotate_list = _f("rotate_list")
    assert rotate_list([1, 2, 3], 7) == [3, 1, 2]
    assert rotate_list([1, 2, 3], 3) == [1, 2, 3]


def test_rotate_list_empty():
    rotate_list = _f("rotate_list")
    assert rotate_list([], 5) == []
    assert rotate_list([], -1) == []


def test_rotate_list_returns_a_new_list():
    data = [1, 2, 3]
    rotated = _f("rotate_list")(data, 1)
    assert rotated == [3, 1, 2]
    assert data == [1, 2, 3]
    unrotated = _f("rotate_list")(data, 0)
    assert unrotated == [1, 2, 3] and unrotated is not data


# remove_duplicates -------------------------------------------------------------------------

def test_remove_duplicates_keeps_first_occurrence_order():
    assert _f("remove_duplicates")([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_remove_duplicates_strings():
    assert _f("remove_duplicates")(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


def test_remove_duplicates_empty():
    assert _f("remove_duplicates")([]) == []


def test_remove_duplicates_nothing_to_remove():
    assert _f("remove_duplicates")([1, 2, 3]) == [1, 2, 3]


def test_remove_duplicates_leaves_input_unchanged():
    data = [2, 2, 1]
    assert _f("remove_duplicates")(data) == [2, 1]
    assert data == [2, 2, 1]


# second_largest ----------------------------------------------------------------------------

def test_second_largest_basic():
    assert _f("second_largest")([1, 4, 2, 3]) == 3


def test_second_largest_counts_repeats_once():
    second_largest = _f("second_largest")
    assert second_largest([5, 5, 3]) == 3
    assert second_largest([4, 4, 4, 1, 1]) == 1


def test_second_largest_none_without_two_distinct_values():
    second_largest = _f("second_largest")
    assert second_largest([7, 7]) is None
    assert second_largest([]) is None
    assert second_largest([42]) is None


def test_second_largest_negative_numbers():
    assert _f("second_largest")([-1, -5, -3]) == -3


def test_second_largest_long_unsorted_list():
    assert _f("second_largest")(list(range(1000))[::-1]) == 998


# merge_sorted ------------------------------------------------------------------------------

def test_merge_sorted_interleaved():
    assert _f("merge_sorted")([1, 3, 5], [2, 4, 6]) == [1, 2, 3, 4, 5, 6]


def test_merge_sorted_empty_inputs():
    merge_sorted = _f("merge_sorted")
    assert merge_sorted([], []) == []
    assert merge_sorted([], [1, 1]) == [1, 1]
    assert merge_sorted([0], []) == [0]


def test_merge_sorted_keeps_duplicates():
    assert _f("merge_sorted")([1, 2, 2], [2, 3]) == [1, 2, 2, 2, 3]


def test_merge_sorted_uneven_and_negative():
    merge_sorted = _f("merge_sorted")
    assert merge_sorted([1, 10, 20, 30], [5]) == [1, 5, 10, 20, 30]
    assert merge_sorted([-3, 0], [-5, -1, 4]) == [-5, -3, -1, 0, 4]


def test_merge_sorted_leaves_inputs_unchanged_and_scales():
    a, b = list(range(0, 200_000, 2)), list(range(1, 200_000, 2))
    merged = _f("merge_sorted")(a, b)
    assert merged == list(range(200_000))
    assert a == list(range(0, 200_000, 2)) and b == list(range(1, 200_000, 2))
