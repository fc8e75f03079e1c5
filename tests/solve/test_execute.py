"""Narrowing a multi-task test file to one task's tests, and reading test files."""

from __future__ import annotations

import pytest

from codeloop.solve.execute import TestFileError, narrow_test_source, read_test_file

SOURCE = '''import pytest


def _load():
    from solution import count_vowels
    return count_vowels


@pytest.fixture
def fn():
    return _load()


def test_count_vowels_basic(fn):
    assert fn("Hello") == 2


def test_count_vowels_empty(fn):
    assert fn("") == 0


def test_count_vowels_upper_extra(fn):
    assert fn("AEIOU") == 5


def test_is_palindrome_basic():
    assert True


class TestSomethingElse:
    def test_x(self):
        assert True
'''


def test_only_this_tasks_tests_are_kept_with_their_helpers():
    narrowed, count = narrow_test_source(SOURCE, "count_vowels")
    assert count == 3
    assert "def _load" in narrowed and "@pytest.fixture" in narrowed
    assert "test_is_palindrome" not in narrowed and "TestSomethingElse" not in narrowed
    compile(narrowed, "narrowed", "exec")


def test_a_file_without_tests_named_for_the_task_is_kept_whole():
    narrowed, count = narrow_test_source(SOURCE, "reverse_words")
    assert narrowed == SOURCE and count == 5


def test_a_test_named_exactly_for_the_task_is_kept():
    source = "def test_count():\n    pass\n\ndef test_other_1():\n    pass\n"
    narrowed, count = narrow_test_source(source, "count")
    assert count == 1 and "test_other_1" not in narrowed


def test_bad_test_files(tmp_path):
    with pytest.raises(TestFileError, match="test file not found"):
        read_test_file(tmp_path / "none.py")
    broken = tmp_path / "broken.py"
    broken.write_text("def test_(:\n")
    with pytest.raises(TestFileError, match="not valid Python"):
        read_test_file(broken)
