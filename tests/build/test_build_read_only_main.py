"""A task's code prompt shows what main holds and the task does not build (an earlier task's
module) read only, and a reply that rewrites it is refused, the task's own module written:
the 1.5B's shortener S4 at f6b8a6d was offered six files and rewrote five in each reply.
Real build: git, sandbox, pytest, scripted task agents, the bundled todo graph."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests
from test_build_fresh_reads import FULL_STORE
from test_build_test_scope import GOOD_TESTS, MODELS, todo_request

from codeloop.build.repo import merged_tasks

STORE_TESTS = '''from app.models import TodoIn
from app.storage import TodoStore


def test_add():
    store = TodoStore()
    assert store.add(TodoIn(title="milk")).id == 1
    assert store.get(1).title == "milk"
'''


def test_an_earlier_tasks_module_is_shown_read_only_and_not_rewritten(build):
    rewritten_models = MODELS.replace("max_length=200", "max_length=5")
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS),
                          file_reply(("app/models.py", rewritten_models),
                                     ("app/storage.py", FULL_STORE))],
              "integration": no_wiring()}
    built = build({**todo_request(), "tasks": todo_request()["tasks"][:2]}, agents)

    assert merged_tasks(built.out) == ["T1", "T2"]
    assert (built.out / "app" / "models.py").read_text() == MODELS  # T1's, as merged
    assert (built.out / "app" / "storage.py").read_text() == FULL_STORE
    code_prompt = built.llm_for("task:T2").calls[1][-1].content
    assert "FILE: app/models.py (read only: do not change it)" in code_prompt
    assert "FILE: tests/test_storage.py (a test: the specification" in code_prompt
    progress = "\n".join(built.progress())
    assert "edit, attempt 1: app/storage.py" in progress
    assert ("app/models.py was not changed: it is shown read only; change only "
            "app/storage.py") in progress
