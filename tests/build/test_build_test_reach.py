"""What each of a task's tests reaches, read before any code is asked for: a fixture used
without being asked for is asked for (the test then reads its value), a test of what earlier
tasks built and a call run at import time are named on their lines, and pruned. Each case
is a test file the 1.5B wrote in the build benchmark; the checks read the real scaffold and
the mended files run under pytest against right code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_build_test_scope import MODELS, _contract, _scaffold

from codeloop.build.fixture_requests import with_requested_fixtures
from codeloop.build.test_scope import prune, scope_problems

# notes N3 at 4c7423d, as written (the store task's tests), on the todo graph's names
UNREQUESTED = '''import pytest

from app.models import Todo, TodoIn
from app.storage import TodoStore


@pytest.fixture
def store():
    return TodoStore()


@pytest.fixture
def todo_in():
    return TodoIn(title="milk")


@pytest.fixture
def todo():
    return Todo(id=1, title="milk")


def test_add(store, todo_in):
    store.add(todo_in)
    assert store.get(1) == todo


def test_add_twice(store, todo_in, todo):
    store.add(todo_in)
    assert store.add(todo_in).id == 2 and store.get(1) == todo
'''
STORE = '''from app.models import Todo, TodoIn


class TodoStore:
    def __init__(self):
        self.todos = {}

    def add(self, todo_in: TodoIn) -> Todo:
        todo = Todo(id=len(self.todos) + 1, **todo_in.model_dump())
        self.todos[todo.id] = todo
        return todo

    def get(self, todo_id: int):
        return self.todos.get(todo_id)
'''
# shortener S3 at 4c7423d, shortened: a call at import time, a test of an earlier task's code
OTHERS = '''from app.main import app
from app.models import TodoIn
from app.storage import TodoStore
from app.text import shout

app.include_router(TodoStore.router)


def test_shout():
    assert shout("a") == "A"


def test_add():
    assert TodoStore().add(TodoIn(title="a")).id == 1
'''


def _run_pytest(tree: Path, test: str) -> subprocess.CompletedProcess:
    (tree / "tests" / "test_storage.py").write_text(test)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_storage.py"], check=False, cwd=tree, capture_output=True,
                          text=True, timeout=120)


def test_a_fixture_used_without_being_asked_for_becomes_a_parameter(tmp_path):
    tree, _ = _scaffold(tmp_path, {"app/models.py": MODELS, "app/storage.py": STORE})
    before = _run_pytest(tree, UNREQUESTED)
    assert "1 failed, 1 passed" in before.stdout  # Todo == a function: never passes
    mended, notes = with_requested_fixtures(UNREQUESTED)
    assert notes == ["test_add: todo"]
    assert "def test_add(store, todo_in, todo):" in mended
    assert "def test_add_twice(store, todo_in, todo):" in mended  # asked already: as it was
    after = _run_pytest(tree, mended)
    assert "2 passed" in after.stdout, after.stdout


def test_what_the_function_binds_or_asks_for_is_left_alone():
    text = ("import pytest\n\n\n@pytest.fixture\ndef item():\n    return 1\n\n\n"
            "@pytest.fixture\ndef pair(item):\n    return (item, item)\n\n\n"
            "def test_local():\n    item = 2\n    assert item == 2\n\n\n"
            "def test_default(x=1):\n    assert item\n\n\n"
            "@pytest.fixture\ndef doubled():\n    return item * 2\n")
    mended, notes = with_requested_fixtures(text)
    # a fixture reading another by name asks for it too; defaults: the signature is kept
    assert notes == ["doubled: item"]
    assert "def doubled(item):" in mended and "def test_default(x=1):" in mended
    assert with_requested_fixtures("def test_(:\n") == ("def test_(:\n", [])
    assert with_requested_fixtures("def test_a():\n    assert 1\n")[1] == []


def test_a_call_at_import_time_and_a_test_of_an_earlier_task_are_named_and_pruned(tmp_path):
    tree, files = _scaffold(tmp_path, {"app/models.py": MODELS,
                                       "app/text.py": "def shout(s):\n    return s.upper()\n"})
    contract = _contract("T2", tree, files + ["app/text.py"], ["T1"], "tests/test_storage.py")
    problems = scope_problems(OTHERS, contract, tree)
    said = [str(p) for p in problems]
    assert said[0].startswith("line 6: `app.include_router(TodoStore.router)` runs when the "
                              "file is imported, outside every test")
    assert said[1] == ("line 9: test_shout tests nothing task T2 builds (it uses shout): "
                       "every test uses TodoStore; what earlier tasks built has its own tests")
    assert len(said) == 2
    # a call of the standard library's at the top is the file's business
    sleepy = ("import time\n\nfrom app.models import TodoIn\nfrom app.storage import "
              "TodoStore\n\ntime.sleep(0.01)\n\n\ndef test_add():\n"
              "    assert TodoStore().add(TodoIn(title='a')).id == 1\n")
    assert scope_problems(sleepy, contract, tree) == []
    kept = prune(OTHERS, problems)
    assert kept is not None and "def test_add" in kept
    assert "test_shout" not in kept and "include_router" not in kept
    assert scope_problems(kept, contract, tree) == []


def test_a_store_reached_through_a_fixture_is_the_tasks_and_routes_tasks_are_not_judged(
        tmp_path):
    tree, files = _scaffold(tmp_path, {"app/models.py": MODELS, "app/storage.py": STORE})
    contract = _contract("T2", tree, files, ["T1"], "tests/test_storage.py")
    assert scope_problems(with_requested_fixtures(UNREQUESTED)[0], contract, tree) == []
    helper = ("import pytest\nfrom app.models import TodoIn\nfrom app.storage import "
              "TodoStore\n\nSTORE = TodoStore()\n\n\ndef _added():\n"
              "    return STORE.add(TodoIn(title='a'))\n\n\ndef test_added():\n"
              "    assert _added().id == 1\n")
    assert scope_problems(helper, contract, tree) == []  # through a helper and a global
    routes = _contract("T3", tree, files, ["T1", "T2"], "tests/test_routes.py")
    test = ("from fastapi import FastAPI\nfrom fastapi.testclient import TestClient\n\n"
            "from app.routes import router\nfrom app.models import TodoIn\n\napp = FastAPI()\n"
            "app.include_router(router)\nclient = TestClient(app)\n\n\ndef test_model():\n"
            "    assert TodoIn(title='a').done is False\n\n\ndef test_post():\n"
            "    assert client.post('/todos', json={'title': 'a'}).status_code == 201\n")
    assert scope_problems(test, routes, tree) == []
