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
from test_build_test_scope import GOOD_TESTS, MODELS, _contract, _scaffold, todo_request

from codeloop.build.contract import task_text
from codeloop.build.contract_tests import contract_test, with_helpers
from codeloop.build.repo import merged_tasks
from codeloop.build.route_smoke import HELPER_FILE, route_calls_helper
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
    (root / "tests" / HELPER_FILE).write_text(route_calls_helper())
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


STORED_ROUTES = ("from fastapi import APIRouter, HTTPException\n\nfrom app.models import Todo, "
                 "TodoIn\nfrom app.storage import TodoStore\n\nrouter = APIRouter()\n"
                 "store = TodoStore()\n\n\n@router.post('/todos', status_code=201)\n"
                 "def create(todo: TodoIn) -> Todo:\n    return store.add(todo)\n\n\n"
                 "@router.get('/todos')\ndef listed() -> list[Todo]:\n    return store.all()\n\n\n"
                 "@router.get('/todos/{todo_id}')\ndef one(todo_id: int) -> Todo:\n"
                 "    found = store.get(todo_id)\n    if found is None:\n"
                 "        raise HTTPException(404)\n    return found\n")
STORE = ("from app.models import Todo, TodoIn\n\n\nclass TodoStore:\n    def __init__(self):\n"
         "        self.items = {}\n\n    def add(self, todo: TodoIn) -> Todo:\n"
         "        made = Todo(id=len(self.items) + 1, **todo.model_dump())\n"
         "        self.items[made.id] = made\n        return made\n\n"
         "    def get(self, todo_id):\n        return self.items.get(todo_id)\n\n"
         "    def all(self):\n        return list(self.items.values())\n")
# the suite's own test of the store: it must still see an empty one after the contract ran
SUITE_STORE_TEST = ("from app.routes import store\n\n\n"
                    "def test_z_the_suites_store_is_untouched():\n    assert store.all() == []\n")


def _routes_contract(tmp_path):
    tree, files = _scaffold(tmp_path, {"app/models.py": MODELS, "app/storage.py": STORE})
    contract = _contract("T3", tree, files, ["T1", "T2"], "tests/test_routes.py")
    test = contract_test(contract, "app/main.py", task_text(_task(contract)))
    # the harness keeps it (its helper counted as the file it writes beside it)
    assert test is not None and not scope_problems(test, with_helpers(contract), tree)
    return tree, test


def test_the_routes_contract_calls_each_route_on_fresh_modules(tmp_path):
    """A router that answers is kept, and the suite's module-level store is not the one the
    calls filled (the contract imports the project afresh)."""
    tree, test = _routes_contract(tmp_path)
    (tree / "app" / "routes.py").write_text(STORED_ROUTES)
    (tree / "tests" / "test_zz_suite.py").write_text(SUITE_STORE_TEST)
    (tree / "tests" / "test_contract.py").write_text(test)
    (tree / "tests" / HELPER_FILE).write_text(route_calls_helper())
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_contract.py", "tests/test_zz_suite.py"], cwd=tree,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout
    assert "4 passed" in done.stdout, done.stdout


def test_the_routes_contract_fails_on_a_route_that_raises(tmp_path):
    """Bookmarks' B3 on the 1.5B: `store.create` on a store that has `add`."""
    tree, test = _routes_contract(tmp_path)
    (tree / "app" / "routes.py").write_text(STORED_ROUTES.replace("store.add(", "store.create("))
    failed = _pytest(tree, test)
    assert failed.returncode == 1
    assert "POST /todos with {'title': 'a'} raised AttributeError: 'TodoStore' object has " \
           "no attribute 'create'" in failed.stdout, failed.stdout


def test_the_routes_contract_fails_when_a_posted_item_is_not_kept(tmp_path):
    """A store made afresh for every request (`Depends()`): the POST answers an id the GET
    does not know."""
    tree, test = _routes_contract(tmp_path)
    (tree / "app" / "routes.py").write_text(
        STORED_ROUTES.replace("def create(todo: TodoIn)", "def create(todo: TodoIn, store: "
                              "TodoStore = Depends())").replace(
            "from fastapi import APIRouter,", "from fastapi import APIRouter, Depends,"))
    failed = _pytest(tree, test)
    assert failed.returncode == 1
    assert ("POST /todos answered {'title': 'a', 'done': False, 'id': 1}, then GET /todos/1 "
            "answered 404: the item was not kept" in failed.stdout), failed.stdout


def test_the_routes_contract_holds_the_statuses_the_task_promises(tmp_path):
    """T3's text: "POST /todos (201, returns the Todo)", "GET /todos/{todo_id} (404 when
    missing)"."""
    tree, test = _routes_contract(tmp_path)
    assert "PROMISED = {('POST', '/todos'): {'ok': 201}, ('GET', '/todos/{}'): {'missing': " \
           "404}}" in test
    (tree / "app" / "routes.py").write_text(STORED_ROUTES.replace(", status_code=201", ""))
    failed = _pytest(tree, test)
    assert "POST /todos answered 200; the task says 201" in failed.stdout, failed.stdout
    (tree / "app" / "routes.py").write_text(STORED_ROUTES.replace(
        "raise HTTPException(404)", "return Todo(id=todo_id, title='?')"))
    failed = _pytest(tree, test)
    assert ("GET /todos/987654 (no such item) answered 200; the task says 404 when it is "
            "missing") in failed.stdout, failed.stdout


DELETES = ("from fastapi.testclient import TestClient\n\nfrom app.main import app\n\n"
           "client = TestClient(app)\n\n\ndef test_delete():\n"
           "    assert client.delete('/todos/1').status_code == 404\n")  # no task builds it
STORE_TESTS = ("from app.models import TodoIn\nfrom app.storage import TodoStore\n\n\n"
               "def test_add():\n    assert TodoStore().add(TodoIn(title='a')).id == 1\n")


def test_a_routes_task_on_its_contract_is_sent_back_until_its_routes_answer(build):
    """The todo graph for real (git, sandbox, pytest): T3's tests never stay in scope, so
    its contract is its test, with the route calls' helper beside it; its first routes call
    `store.create` (the 1.5B's), the contract's failure says so, and the fixed routes are
    merged with the helper on main."""
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS), file_reply(("app/storage.py", STORE))],
              "task:T3": [*[reply_with_tests(DELETES)] * 2,
                          file_reply(("app/routes.py",
                                      STORED_ROUTES.replace("store.add(", "store.create("))),
                          file_reply(("app/routes.py", STORED_ROUTES))],
              "integration": no_wiring()}
    built = build(todo_request(), agents)

    assert sorted(merged_tasks(built.out)) == ["T1", "T2", "T3"], "\n".join(built.progress())
    assert (built.out / "tests" / HELPER_FILE).read_text() == route_calls_helper()
    fix_prompt = built.llm_for("task:T3").calls[3][-1].content
    assert "'TodoStore' object has no attribute 'create'" in fix_prompt
    assert "def call_routes" not in fix_prompt  # the helper is not in the prompt


WIRED_MAIN = ("from fastapi import FastAPI\n\nfrom app.routes import router\n\n"
              "app = FastAPI(title='todo')\napp.include_router(router)\n\n\n"
              "@app.get('/health')\ndef health() -> dict:\n    return {'status': 'ok'}\n")


def test_a_routes_tasks_own_tests_get_the_contract_of_its_routes_beside_them(build):
    """T3's own tests stay in scope (they POST to the route it builds) and pass on routes
    that answer 200 where the task says 201: the harness's contract test beside them fails
    until the routes answer as promised."""
    own = ENDPOINT_ONLY.replace("== 201", "< 300")
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS), file_reply(("app/storage.py", STORE))],
              "task:T3": [reply_with_tests(own),
                          file_reply(("app/routes.py",
                                      STORED_ROUTES.replace(", status_code=201", "")),
                                     ("app/main.py", WIRED_MAIN)),
                          file_reply(("app/routes.py", STORED_ROUTES))],
              "integration": no_wiring()}
    built = build(todo_request(), agents)

    assert sorted(merged_tasks(built.out)) == ["T1", "T2", "T3"], "\n".join(built.progress())
    assert (built.out / "tests" / "test_routes.py").read_text().rstrip() == own.rstrip()
    assert "check_routes(" in (built.out / "tests" / "test_routes_contract.py").read_text()
    fix_prompt = built.llm_for("task:T3").calls[2][-1].content
    assert "POST /todos answered 200; the task says 201" in fix_prompt
    assert any("the harness's test of the routes goes beside them "
               "(tests/test_routes_contract.py)" in m for m in built.progress())


def test_the_harness_contract_is_never_pruned_nor_repaired_by_the_model(build):
    """bookmarks B3 at a0d1d3c: its routes served /bookmarks/bookmarks, the model stood by
    them (here: served elsewhere), and the contract's "routes are served" test was dropped as unmet; the route calls,
    finding no promised route, passed, and B3 merged. Now the contract stays whole."""
    # routes the task did not promise (the harness mends a repeated prefix since: not that)
    doubled = STORED_ROUTES.replace("'/todos", "'/todo-items")
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS), file_reply(("app/storage.py", STORE))],
              "task:T3": [*[reply_with_tests(DELETES)] * 2,
                          *[file_reply(("app/routes.py", doubled))] * 6],
              "integration": no_wiring()}
    built = build(todo_request(), agents)

    assert sorted(merged_tasks(built.out)) == ["T1", "T2"], "\n".join(built.progress())
    progress = "\n".join(built.progress())
    assert "T3: dropped" not in progress and "one round to fix" not in progress
    fix_prompt = built.llm_for("task:T3").calls[3][-1].content
    assert "GET /todos is not served; served: " in fix_prompt  # the contract's two tests
    assert "none of [('GET', '/todos')" in fix_prompt


DELETE_ROUTES = (
    "from fastapi import APIRouter, HTTPException\n\nrouter = APIRouter(prefix='/b')\n"
    "items = {}\n\n\n@router.post('', status_code=201)\ndef add():\n"
    "    items[len(items) + 1] = True\n    return {'id': len(items)}\n\n\n"
    "@router.delete('/{item_id}', status_code=204)\nasync def drop(item_id: int):\n"
    "    if items.pop(item_id, None) is None:\n        raise HTTPException(404)\n"
    "    return None\n")


def test_the_routes_contract_reads_an_empty_204_answer(tmp_path):
    """Bookmarks' B3 on the 1.5B: a right `status_code=204` DELETE returning None answers an
    empty body labelled application/json, and the helper's JSON read raised on it."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "routes.py").write_text(DELETE_ROUTES)
    (tmp_path / HELPER_FILE).write_text(route_calls_helper())
    check = ("from codeloop_route_calls import check_routes\n"
             "check_routes(['shop.routes'], [('POST', '/b'), ('DELETE', '/b/{}')],\n"
             "             {('DELETE', '/b/{}'): {'ok': 204, 'missing': 404}})\nprint('ok')\n")
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    # and a DELETE that answers 200 is still held to the 204 the task promises
    (tmp_path / "shop" / "routes.py").write_text(DELETE_ROUTES.replace(", status_code=204", ""))
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert "DELETE /b/1 answered 200; the task says 204" in done.stderr, done.stderr


def test_code_on_the_contract_sent_back_twice_is_asked_anew_and_a_retry_is_sampled(build):
    """The harness's contract is right by construction: code sent back unchanged twice gets
    the engine's blanked round, not the end of its rounds (bookmarks' B3 on the 1.5B), and
    the next attempt, whose first prompt is the same contract's, is sampled (its three
    attempts sent the same routes, 285 tokens each)."""
    wrong = STORED_ROUTES.replace("store.add(", "store.create(")
    agents = {"task:T1": [reply_with_tests(GOOD_TESTS), file_reply(("app/models.py", MODELS))],
              "task:T2": [reply_with_tests(STORE_TESTS), file_reply(("app/storage.py", STORE))],
              "task:T3": [*[reply_with_tests(DELETES)] * 2,
                          *[file_reply(("app/routes.py", wrong))] * 4,
                          *[reply_with_tests(DELETES)] * 2,
                          file_reply(("app/routes.py", STORED_ROUTES))],
              "integration": no_wiring()}
    built = build(todo_request(), agents, retries=1)

    assert sorted(merged_tasks(built.out)) == ["T1", "T2", "T3"], "\n".join(built.progress())
    progress = "\n".join(built.progress())
    assert "T3: the code came back unchanged twice: the functions the failure calls asked " \
           "anew, their bodies not shown" in progress
    assert "its tests fail on their own checks" not in progress
    t3 = built.llm_for("task:T3")
    blanked = t3.calls[5][-1].content
    assert "raise NotImplementedError" in blanked and "store.create(" not in blanked
    first_code = [i for i, call in enumerate(t3.calls)
                  if "Write app.routes so that the tests" in call[-1].content
                  and "This is attempt" not in call[-1].content]
    assert len(first_code) == 2, "one first code prompt per attempt"
    assert t3.calls[first_code[0]][-1].content == t3.calls[first_code[1]][-1].content
    assert t3.temperatures[first_code[0]] == 0.0 and t3.temperatures[first_code[1]] > 0.0
