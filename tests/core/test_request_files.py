"""What a request says about the workspace's files (jobs/request_files.py): rules, no model."""

from __future__ import annotations

import pytest

from codeloop.jobs.request_files import (
    asks_to_change_tests,
    is_test_path,
    local_imports,
    mentioned_names,
    named_files,
    protects_tests,
)

FILES = ["people.py", "test_people.py", "app/models.py", "app/storage.py", "tests/test_api.py",
         "README.md", "pkg/__init__.py", "pkg/util.py"]


def test_named_files_by_path_or_by_a_unique_name_and_the_new_ones():
    existing, new = named_files(
        "Fix parse_age in people.py; test_people.py shows it. Also see models.py and "
        "create app/api.py and `cli.py`.", FILES)
    assert existing == ["people.py", "test_people.py", "app/models.py"]
    assert new == ["app/api.py", "cli.py"]


def test_a_name_two_files_share_is_not_guessed():
    existing, new = named_files("look at util.py", ["a/util.py", "b/util.py"])
    assert existing == [] and new == []


def test_mentioned_names_skip_sentence_dots_and_repeats():
    assert mentioned_names("Edit a.py. Then a.py again, e.g. b.json.") == ["a.py", "b.json"]


@pytest.mark.parametrize("path,expected", [
    ("test_people.py", True), ("people_test.py", True), ("tests/helpers.py", True),
    ("conftest.py", True), ("src/app.test.js", True), ("x/y.spec.ts", True),
    ("handler_test.go", True), ("people.py", False), ("contest.py", False),
    ("attest/x.py", False),
])
def test_test_paths(path, expected):
    assert is_test_path(path) is expected


@pytest.mark.parametrize("request_text,protected", [
    ("The tests in test_x.py fail. Find and fix the bug in x.py.", True),
    ("parse_age crashes on bad input; fix it", True),
    ("Fix the failing test in test_x.py, the test is wrong", False),
    ("Add a test for is_palindrome in test_strings.py and fix the bug", False),
    ("Write tests for slugify in test_text.py", False),
    ("Rename calc_total to compute_total in every file", False),
    ("Create fizzbuzz.py", False),
])
def test_tests_are_protected_only_when_the_request_asks_to_fix_code(request_text, protected):
    assert protects_tests(request_text) is protected


def test_local_imports_resolve_modules_packages_and_relative_imports():
    source = ("import os\nimport people\nfrom app import models\nfrom app.storage import Store\n"
              "from pkg import util\nimport requests\n")
    assert local_imports(source, "tests/test_api.py", FILES) == [
        "people.py", "app/models.py", "app/storage.py", "pkg/__init__.py", "pkg/util.py"]
    assert local_imports("from . import util\nfrom .util import f\n", "pkg/__init__.py",
                         FILES) == ["pkg/util.py"]
    assert local_imports("def broken(:\n", "x.py", FILES) == []


def test_a_negated_ask_protects_the_tests():
    # "do not change the tests" is the opposite of asking for test changes (review's
    # failing-test request showed the test file as a file to edit)
    request = ("test_text_utils.py fails. Fix slugify in text_utils.py so the tests pass; "
               "do not change the tests.")
    assert not asks_to_change_tests(request) and protects_tests(request)
    assert protects_tests("Fix the bug in a.py and don't edit the tests")
    assert asks_to_change_tests("Fix the bug, then update the tests for it")
