"""A task's test that reads a new object nothing was added to, and fails because it answered
empty, is dropped during the code rounds (fresh_reads.py); one that fails another way, or
that writes first, stays. As the 1.5B wrote notes N3's tests (build benchmark at 4c7423d):
the build runs for real (git, sandbox, pytest) on the bundled todo graph with scripted
task agents, and the rule's two halves are checked on a real pytest report."""

from __future__ import annotations

import subprocess
import sys

from build_replies import file_reply, no_wiring, reply_with_tests
from test_build_test_reach import STORE
from test_build_test_scope import GOOD_TESTS, MODELS, _scaffold, todo_request

from codeloop.build.fresh_reads import answered_empty, fresh_reads
from codeloop.build.repo import merged_tasks

STORE_TESTS = '''import pytest

from app.models import Todo, TodoIn
from app.storage import TodoStore


@pytest.fixture
def store():
    return TodoStore()


@pytest.fixture
def todo():
    return Todo(id=1, title="milk")


def test_add(store):
    store.add(TodoIn(title="milk"))
    assert store.get(1).title == "milk"


def test_get(store, todo):
    assert store.get(1) == todo


def test_all():
    store = TodoStore()
    assert len(store.all()) > 0


def test_missing(store):
    assert store.get(5) is None
'''
# get() on a fresh store raises: the code's to fix, not the test's
RAISING_STORE = STORE.replace("return self.todos.get(todo_id)", "return self.todos[todo_id]")
FULL_STORE = STORE + "\n    def all(self):\n        return list(self.todos.values())\n"


def _report(tmp_path, store: str, tests: str) -> str:
    tree, _ = _scaffold(tmp_path, {"app/models.py": MODELS, "app/storage.py": store})
    (tree / "tests" / "test_storage.py").write_text(tests)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "--tb=short", "-p",
                           "no:cacheprovider", "tests/test_storage.py"], check=False, cwd=tree,
                          capture_output=True, text=True, timeout=120).stdout


def test_the_tests_that_read_a_new_store_without_writing_are_known():
    assert fresh_reads(STORE_TESTS, {"app.storage"}) == {"test_get", "test_all", "test_missing"}
    # the file calls no method for its effect alone: nothing says which ones write
    no_writer = STORE_TESTS.replace('    store.add(TodoIn(title="milk"))\n    assert',
                                    '    assert store.add(TodoIn(title="milk")) and')
    assert fresh_reads(no_writer, {"app.storage"}) == set()
    # a store passed on, or built with data, is not known to be empty
    passed_on = STORE_TESTS.replace("assert store.get(1) == todo", "assert helper(store)")
    assert "test_get" not in fresh_reads(passed_on, {"app.storage"})
    assert fresh_reads(STORE_TESTS, {"app.other"}) == set()
    assert fresh_reads("def test_(:\n", {"app.storage"}) == set()


def test_only_a_failure_that_answered_empty_counts(tmp_path):
    report = _report(tmp_path, FULL_STORE, STORE_TESTS)
    assert "2 failed, 2 passed" in report
    assert answered_empty(report) == {"test_get", "test_all"}
    raised = _report(tmp_path / "raising", RAISING_STORE + "\n    def all(self):\n"
                     "        return [1]\n", STORE_TESTS)
    # KeyError from get, and all() answering a non-empty list: neither is an empty answer
    assert "test_missing" not in answered_empty(raised)
    assert "test_all" not in answered_empty(raised) and "test_get" not in answered_empty(raised)


def test_a_store_task_merges_once_the_reads_of_a_new_store_are_dropped(build):
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS),
                          file_reply(("app/storage.py", FULL_STORE))],
              "integration": no_wiring()}
    built = build({**todo_request(), "tasks": todo_request()["tasks"][:2]}, agents,
                  fix_rounds=1)

    assert merged_tasks(built.out) == ["T1", "T2"]
    kept = (built.out / "tests" / "test_storage.py").read_text()
    assert "def test_add" in kept and "def test_missing" in kept
    assert "def test_get(" not in kept and "def test_all" not in kept
    assert any("dropped test_all, test_get from tests/test_storage.py: each reads a new "
               "object nothing was added to" in m for m in built.progress())
    # dropped in the first round: the one code reply was enough
    assert len(built.llm_for("task:T2").calls) == 2


def test_a_store_whose_read_raises_is_not_excused(build):
    raising = RAISING_STORE + "\n    def all(self):\n        return list(self.todos.values())\n"
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS), file_reply(("app/storage.py", raising)),
                          file_reply(("app/storage.py", FULL_STORE))],
              "integration": no_wiring()}
    built = build({**todo_request(), "tasks": todo_request()["tasks"][:2]}, agents,
                  fix_rounds=1)

    assert merged_tasks(built.out) == ["T1", "T2"]
    # the first round's KeyError went back to the model; the second round's code merged
    prompts = [c[-1].content for c in built.llm_for("task:T2").calls]
    assert len(prompts) == 3 and "KeyError" in prompts[2]
    assert (built.out / "app" / "storage.py").read_text() == FULL_STORE
