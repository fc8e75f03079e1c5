"""A dict given in a test to a method the task says takes a model is given as that model
(build/model_arguments.py): bookmarks B2's tests at 48067b3 and 4e021a9 passed dicts to
`add(BookmarkIn)`, and right code failed them. Checked with real pytest, and through the
real build (git, sandbox, pytest) of the bundled todo graph on scripted agents."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.model_arguments import stated_parameters, with_model_arguments
from codeloop.build.repo import merged_tasks

TODO = Path(__file__).resolve().parents[2] / "examples" / "build" / "todo" / "tasks.json"
MODELS = '''from pydantic import BaseModel, Field


class TodoIn(BaseModel):
    title: str = Field(min_length=1, max_length=200)
    done: bool = False


class Todo(TodoIn):
    id: int
'''
STORAGE = '''from app.models import Todo, TodoIn


class TodoStore:
    def __init__(self):
        self.todos: dict[int, Todo] = {}

    def add(self, todo_in: TodoIn) -> Todo:
        todo = Todo(id=len(self.todos) + 1, **todo_in.model_dump())
        self.todos[todo.id] = todo
        return todo

    def get(self, todo_id: int):
        return self.todos.get(todo_id)

    def all(self):
        return list(self.todos.values())

    def delete(self, todo_id: int) -> bool:
        return self.todos.pop(todo_id, None) is not None
'''
# bookmarks B2's tests at 4e021a9 (call 11), on the todo graph's names
TESTS = '''import pytest
from app.storage import TodoStore


@pytest.fixture
def storage():
    return TodoStore()


def test_add(storage):
    data = {"title": "milk", "done": False}
    storage.add(data)
    todo = storage.get(1)
    assert todo is not None
    assert todo.title == data["title"]


def test_all(storage):
    storage.add({"title": "milk"})
    storage.add({"title": "eggs"})
    assert [t.title for t in storage.all()] == ["milk", "eggs"]
'''
TASK_TEXT = "class TodoStore in app.storage with add(TodoIn) -> Todo (ids 1, 2, ...), get(id)"


def _pytest(tmp_path: Path, tests: str, storage: str) -> subprocess.CompletedProcess:
    (tmp_path / "app").mkdir(exist_ok=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "models.py").write_text(MODELS)
    (tmp_path / "app" / "storage.py").write_text(storage)
    (tmp_path / "test_storage.py").write_text(tests)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_storage.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_dict_is_given_as_the_model_and_right_code_passes(tmp_path):
    written = _pytest(tmp_path, TESTS, STORAGE)
    assert written.returncode == 1 and "'dict' object has no attribute" in written.stdout
    parameters = stated_parameters(TASK_TEXT, {"TodoIn", "Todo"})
    assert parameters == {"add": "TodoIn"}  # not get(id): no model
    mended, notes = with_model_arguments(TESTS, parameters)
    assert "    storage.add(TodoIn(**data))\n" in mended
    assert '    storage.add(TodoIn(**{"title": "milk"}))\n' in mended
    assert len(notes) == 3 and notes[0].startswith("line 12: a dict is given as TodoIn(**data)")
    imported = "from app.models import TodoIn\n" + mended
    assert _pytest(tmp_path, imported, STORAGE).returncode == 0
    # code that stores nothing still fails the mended tests
    forgets = STORAGE.replace("        self.todos[todo.id] = todo\n", "")
    assert _pytest(tmp_path, imported, forgets).returncode == 1


def test_a_client_a_model_argument_and_an_unstated_method_are_left_alone():
    parameters = {"add": "TodoIn"}
    kept = ('def test_a(client, store):\n    client.add({"title": "x"})\n'
            '    store.add(TodoIn(title="x"))\n    store.update({"title": "x"})\n'
            '    data = {"title": "x"}\n    data = make()\n    store.add(data)\n')
    assert with_model_arguments(kept, parameters) == (kept, [])
    assert with_model_arguments(kept, {}) == (kept, [])
    assert with_model_arguments("def (:\n", parameters) == ("def (:\n", [])


def test_through_the_build_the_dicts_become_models_imported_from_main_and_t2_merges(build):
    request = json.loads(TODO.read_text())
    request["tasks"] = [t for t in request["tasks"] if t["id"] in ("T1", "T2")]
    t1_tests = "from app.models import TodoIn\n\n\ndef test_title():\n" \
               "    assert TodoIn(title='milk').title == 'milk'\n"
    agents = {"task:T1": [reply_with_tests(t1_tests), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(TESTS), file_reply(("app/storage.py", STORAGE))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert merged_tasks(built.out) == ["T1", "T2"]
    written = (built.out / "tests" / "test_storage.py").read_text()
    assert "from app.models import TodoIn\n" in written
    assert "storage.add(TodoIn(**data))" in written
    assert any("a dict is given as TodoIn(**data)" in line for line in built.progress())
