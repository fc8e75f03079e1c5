"""import_homes.corrected_imports on its own: only an unambiguous home is taken (one module
on main that defines the name, or the task's one module for a name the task builds); an
import that is right, a name nobody defines, or one two modules define, stays as written
(the scope check then says why)."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.contract import TaskContract
from codeloop.build.import_homes import (
    corrected_imports,
    forgotten_project_imports,
    without_self_imports,
)

SOURCES = {
    "app/main.py": "from fastapi import FastAPI\n\napp = FastAPI()\n",
    "app/models.py": "class Item:\n    pass\n\n\nclass Twice:\n    pass\n",
    "app/storage.py": "from app.models import Item\n\n\nclass Store:\n    pass\n",
    "app/other.py": "class Twice:\n    pass\n",
}


def _contract(**changes) -> TaskContract:
    return TaskContract(**{
        "task_id": "T3", "language": "python", "src_dir": "app",
        "test_path": "tests/test_routes.py", "modules": ["app/routes.py"],
        "modules_named": True, "names": ["router"], "endpoints": [], "serves_http": True,
        "built": {"app/main.py": ["FastAPI", "app"], "app/models.py": ["Item", "Twice"],
                  "app/storage.py": ["Item", "Store"], "app/other.py": ["Twice"]},
        "built_by": {}, "served": [], **changes})


def test_each_name_goes_to_its_one_home_and_the_rest_stays():
    text = ("import pytest\nfrom app.main import app, Store as S, router, Item\n\n\n"
            "def test_x():\n    assert S and router and Item and app\n")
    fixed, notes = corrected_imports(text, _contract(), SOURCES.get)
    # Item is defined in app.models (app.storage only imports it)
    assert fixed.splitlines()[:5] == ["import pytest", "from app.main import app",
                                      "from app.storage import Store as S",
                                      "from app.routes import router",
                                      "from app.models import Item"], fixed
    assert notes == ["Store is imported from app.storage, not app.main (which has no Store)",
                     "router is imported from app.routes, not app.main (which has no router)",
                     "Item is imported from app.models, not app.main (which has no Item)"]


def test_right_unknown_and_ambiguous_imports_are_left_alone():
    text = ("from app.models import Item\nfrom app.main import Twice, Nowhere\n"
            "from app.routes import router\n\n\ndef test_x():\n    pass\n")
    assert corrected_imports(text, _contract(), SOURCES.get) == (text, [])
    # the task's name is its own only when the task builds one module
    two = _contract(modules=["app/routes.py", "app/deps.py"])
    moved = "from app.main import router\n"
    assert corrected_imports(moved, two, SOURCES.get) == (moved, [])
    # a file the guard refuses (None) defines nothing
    assert corrected_imports("from app.main import Store\n", _contract(),
                             lambda path: None) == ("from app.main import Store\n", [])
    assert corrected_imports("def f(:\n", _contract(), SOURCES.get) == ("def f(:\n", [])


def test_a_module_not_on_main_is_left_to_the_reply_that_may_create_it():
    text = "from app.api import router, Store\n"
    assert corrected_imports(text, _contract(), SOURCES.get) == (text, [])


def test_the_code_of_a_task_importing_from_the_wrong_module_is_corrected(build):
    """B's code imports A's Store from app.main (the 1.5B's todo routes imported TodoStore
    from app.models in all six attempts): written with the import pointed at app.a, and
    the next prompt is told."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": "class Store in app.a", "depends_on": []},
        {"id": "B", "description": "a function named total in app.b that uses Store",
         "depends_on": ["A"]}]}
    a_test = "from app.a import Store\n\n\ndef test_store():\n    assert Store().n == 0\n"
    b_test = ("from app.a import Store\nfrom app.b import total\n\n\ndef test_total():\n"
              "    assert total(Store()) == 0\n")
    # and the tests' import of the module copied into the module itself (bookmarks B3)
    b_code = ("from app.b import total\nfrom app.main import app, Store\n\n\n"
              "def total(store: Store) -> int:\n    return store.n\n")
    agents = {"task:A": [reply_with_tests(a_test),
                         file_reply(("app/a.py", "class Store:\n    n = 0\n"))],
              "task:B": [reply_with_tests(b_test), file_reply(("app/b.py", b_code))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert sorted(built.final["completed_tasks"]) == ["A", "B"], built.final
    code = (built.out / "app" / "b.py").read_text()
    assert code.startswith("from app.main import app\nfrom app.a import Store\n"), code


def test_a_project_name_used_without_its_import_gets_it_from_its_one_home():
    text = ('"""Routes."""\nimport pytest\nfrom fastapi.testclient import TestClient\n\n\n'
            "def test_x(tmp_path):\n    client = TestClient(app)\n"
            "    item = Item()\n    assert Store and router and Twice and len([item])\n"
            "    try:\n        pass\n    except ValueError as error:\n        print(error)\n")
    fixed, notes = forgotten_project_imports(text, _contract(), SOURCES.get)
    assert fixed.splitlines()[:7] == [
        '"""Routes."""', "import pytest", "from fastapi.testclient import TestClient",
        "from app.models import Item", "from app.storage import Store",
        "from app.main import app", "from app.routes import router"], fixed
    assert "from app.routes import router" in fixed  # what the task builds
    assert "Twice" not in fixed.split("def test_x")[0]  # two modules define it
    assert sorted(notes) == sorted(
        f"{name} is imported from {home} (the file used it without importing it)"
        for name, home in [("Item", "app.models"), ("app", "app.main"),
                           ("Store", "app.storage"), ("router", "app.routes")])
    # the task's own module does not import its own name
    code = "def router():\n    return helper()\n"
    assert forgotten_project_imports(code, _contract(), SOURCES.get, "app/routes.py") == (
        code, [])


def test_a_module_importing_itself_loses_that_import_and_nothing_else():
    """The 1.5B's app/routes.py began with its tests' `from app.routes import router` in
    every attempt of bookmarks B3: a circular ImportError each time."""
    text = ("from fastapi import APIRouter\nfrom app import models, routes\n"
            "from app.routes import router\nimport app.routes, json\n\n"
            "router = APIRouter()\n")
    mended, notes = without_self_imports(text, "app/routes.py")
    assert mended == ("from fastapi import APIRouter\nfrom app import models\n"
                      "import json\n\nrouter = APIRouter()\n")
    assert [n.split(":")[0] for n in notes] == [
        "the module imported itself (`from app import routes`)",
        "the module imported itself (`from app.routes import router`)",
        "the module imported itself (`import app.routes`)"]
    assert without_self_imports(text, "app/main.py") == (text, [])
    assert without_self_imports("from app.routes import (\n", "app/routes.py") == \
        ("from app.routes import (\n", [])
