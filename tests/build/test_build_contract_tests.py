"""When the model's tests never stay within the task, the harness writes the task's contract as
its test (build/contract_tests.py): its modules import and hold the names it promises, its
routes are served. Measured on the 1.5B: shortener's S2 wrote tests that POST to a later
task's endpoint in all six files asked for, was blocked, and blocked the two tasks after it.
The generated tests run in real pytest against real modules (they must fail on code that
lacks a name or a route); the build runs for real (git, sandbox, pytest) with scripted
task agents."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from build_replies import file_reply, no_wiring, reply_with_tests
from test_build_test_scope import MODELS, _contract, _scaffold, todo_request

from codeloop.build.contract import task_text
from codeloop.build.contract_tests import contract_test
from codeloop.build.repo import merged_tasks
from codeloop.build.test_scope import scope_problems

ENDPOINT_ONLY = ("from fastapi.testclient import TestClient\n\nfrom app.main import app\n\n"
                 "client = TestClient(app)\n\n\ndef test_create():\n"
                 "    assert client.post('/todos', json={'title': 'a'}).status_code == 201\n")
ROUTES = ("from fastapi import APIRouter, HTTPException\n\nrouter = APIRouter(prefix='/todos')\n\n\n"
          "@router.post('', status_code=201)\ndef create():\n    return {}\n\n\n"
          "@router.get('')\ndef listed():\n    return []\n\n\n"
          "@router.get('/{todo_id}')\ndef one(todo_id: int):\n    raise HTTPException(404)\n")


STORAGE = "class TodoStore:\n    pass\n"


def _task(contract) -> dict:
    return next(t for t in todo_request()["tasks"] if t["id"] == contract.task_id)


def _pytest(root: Path, test: str) -> subprocess.CompletedProcess:
    (root / "tests" / "test_contract.py").write_text(test)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_contract.py"], cwd=root, capture_output=True, text=True,
                          check=False)


def test_the_data_model_contract_passes_on_the_models_and_fails_without_a_name(tmp_path):
    tree, files = _scaffold(tmp_path)  # as T1 starts: no app/models.py yet
    contract = _contract("T1", tree, files, [], "tests/test_models.py")
    test = contract_test(contract, "app/main.py", task_text(_task(contract)))
    assert test is not None and not scope_problems(test, contract, tree)
    assert "NAMES = ['TodoIn', 'Todo']" in test
    (tree / "app" / "models.py").write_text(MODELS)
    assert _pytest(tree, test).returncode == 0
    (tree / "app" / "models.py").write_text(MODELS.split("class Todo(")[0])
    failed = _pytest(tree, test)
    assert failed.returncode == 1 and "AssertionError: Todo" in failed.stdout


def test_the_routes_contract_reads_the_tasks_router_and_fails_on_a_missing_route(tmp_path):
    tree, files = _scaffold(tmp_path, {"app/models.py": MODELS, "app/storage.py": STORAGE})
    contract = _contract("T3", tree, files, ["T1", "T2"], "tests/test_routes.py")
    test = contract_test(contract, "app/main.py", task_text(_task(contract)))
    assert test is not None and "('GET', '/todos/{}')" in test
    assert "NAMES = ['router']" in test  # TodoStore is main's (T2's), not the routes task's
    (tree / "app" / "routes.py").write_text(ROUTES)
    assert _pytest(tree, test).returncode == 0, _pytest(tree, test).stdout
    (tree / "app" / "routes.py").write_text(ROUTES.replace("@router.get('')", "@router.put('')"))
    failed = _pytest(tree, test)
    assert failed.returncode == 1 and "GET /todos" in failed.stdout
    # the router's prefix written again in a route: what is served is said
    (tree / "app" / "routes.py").write_text(ROUTES.replace("@router.get('')",
                                                           "@router.get('/todos')"))
    failed = _pytest(tree, test)
    assert ("GET /todos is not served; served: GET /health, GET /todos/todos, GET /todos/{}, "
            "POST /todos") in failed.stdout, failed.stdout
    # the router included in the app (FastAPI 0.165 keeps it as an `_IncludedRouter` with
    # no `.path`: the first version of this test broke on it, and the harness's wiring of
    # bookmarks' router was refused as making the suite worse)
    (tree / "app" / "routes.py").write_text(ROUTES)
    main = (tree / "app" / "main.py").read_text()
    (tree / "app" / "main.py").write_text(
        main + "\nfrom app.routes import router  # noqa: E402\napp.include_router(router)\n")
    assert _pytest(tree, test).returncode == 0, _pytest(tree, test).stdout


def test_a_task_whose_tests_never_stay_in_scope_is_built_against_its_contract(build):
    agents = {"task:T1": [*[reply_with_tests(ENDPOINT_ONLY)] * 3,
                          file_reply(("app/models.py", MODELS))],
              "integration": no_wiring()}
    built = build(todo_request(), agents)
    assert "T1" in merged_tasks(built.out)
    kept = (built.out / "tests" / "test_models.py").read_text()
    assert "The task's contract, checked by the harness" in kept and "client.post" not in kept
    assert any("the harness writes the task's contract as its test" in line
               for line in built.progress())
