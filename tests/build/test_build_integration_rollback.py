"""The integration never leaves main worse than it found it: when its writes break a suite
that passed and its fixes do not mend it, main goes back to the merged tasks' commit (the
1.5B's todo run left an app/__init__.py that imports app.main, and main's suite failing).
Real build: git, sandbox, pytest, scripted agents."""

from __future__ import annotations

import subprocess
import sys

from build_replies import file_reply, func_task, tasks

from codeloop.build.router_wiring import unwired_routers, wired_entry, without_self_registration
from codeloop.gitutil import git

BREAKS = file_reply(("app/__init__.py", "from app.missing import thing\n"))


def test_an_integration_that_breaks_a_passing_suite_is_rolled_back(build):
    # the wiring, three fix rounds and the reading of the failure after two echoes
    agents = {"task:A": func_task("a", "1"), "integration": [BREAKS] * 5}
    built = build(tasks(("A",)), agents)

    assert built.final["status"] == "COMPLETE", built.final
    report = built.final["integration"]
    assert report["passed"] is True and report["fixes"] == 3
    assert any("rolled back" in note for note in report["notes"])
    assert not (built.out / "app" / "__init__.py").read_text().startswith("from app.missing")
    log = git(["log", "--format=%s"], built.out).stdout.splitlines()
    assert not any(line.startswith("integration:") for line in log)
    assert git(["status", "--porcelain"], built.out).stdout == ""
    assert any("rolled back" in line for line in built.progress())


def test_an_integration_that_mends_the_suite_is_kept(build):
    # the wiring breaks it, the first fix mends it: kept, with its commits
    mend = file_reply(("app/__init__.py", ""))
    agents = {"task:A": func_task("a", "1"), "integration": [BREAKS, mend]}
    built = build(tasks(("A",)), agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert not any("rolled back" in n for n in built.final["integration"]["notes"])
    log = git(["log", "--format=%s"], built.out).stdout.splitlines()
    assert any(line.startswith("integration:") for line in log)


ROUTES = ("from fastapi import APIRouter\n\nrouter = APIRouter(prefix='/items')\n\n\n"
          "@router.get('')\ndef listed():\n    return []\n")
ROUTES_TEST = ("from fastapi import FastAPI\nfrom fastapi.testclient import TestClient\n\n"
               "from app.routes import router\n\n\ndef test_items():\n    api = FastAPI()\n"
               "    api.include_router(router)\n"
               "    assert TestClient(api).get('/items').json() == []\n")
SERVED = ("from fastapi.testclient import TestClient\n\nfrom app.main import app\n\n\n"
          "def test_served():\n    assert TestClient(app).get('/items').status_code == 200\n")


def test_a_router_nobody_registers_is_registered_by_the_harness(build, tmp_path):
    """The todo run's routes task merged a router that app.main never included, and the
    1.5B's integration broke the suite and was rolled back: the router was served nowhere.
    The harness includes it in the entry point before the model's integration round."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "R", "description": "an APIRouter named router in app.routes with GET /items",
         "depends_on": []}]}
    agents = {"task:R": [f"```python\n{ROUTES_TEST}```", file_reply(("app/routes.py", ROUTES))],
              "integration": ["DONE"]}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final
    main = (built.out / "app" / "main.py").read_text()
    assert "from app.routes import router as routes_router" in main
    assert "app.include_router(routes_router)" in main
    assert any("the harness registered app.routes.router in app/main.py" in note
               for note in built.final["integration"]["notes"])
    # the app serves the route: a real request through the wired entry point
    (built.out / "tests" / "test_served.py").write_text(SERVED)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_served.py"], cwd=built.out, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0, run.stdout


def test_only_routers_no_module_imports_are_wired_and_only_into_a_fastapi_entry():
    main = "from fastapi import FastAPI\n\napi = FastAPI()\n"
    files = {"app/main.py": main, "app/routes.py": ROUTES,
             "app/admin.py": "from fastapi import APIRouter\nadmin = APIRouter()\n",
             "app/api.py": "from app import admin\n"}  # includes admin's router itself
    assert unwired_routers(files, "app/main.py") == [("app.routes", "router")]
    wired = wired_entry(main, [("app.routes", "router")])
    assert wired is not None and wired.endswith(
        "from app.routes import router as routes_router  # noqa: E402 (wired by codeloop)\n"
        "api.include_router(routes_router)\n")
    assert unwired_routers({**files, "app/main.py": main + "from app.routes import router\n"},
                           "app/main.py") == []
    assert wired_entry("app = make_app()\n", [("app.routes", "router")]) is None
    assert wired_entry("def f(:\n", [("app.routes", "router")]) is None


SELF_REGISTERING = ("from fastapi import APIRouter\n\nfrom app.main import app\n\n"
                    "router = APIRouter(prefix='/items')\n\n\n@router.get('')\ndef listed():\n"
                    "    return []\n\n\napp.include_router(router)\n")
# imports the routes module first: with the registration left in it and the router wired
# into app.main too, this is the import cycle the bookmarks build met
ROUTES_FIRST = ("from fastapi.testclient import TestClient\n\nimport app.routes  # noqa: F401\n"
                "from app.main import app\n\n\ndef test_served():\n"
                "    assert TestClient(app).get('/items').status_code == 200\n")


def test_a_router_that_registers_itself_is_registered_by_the_entry_point(build):
    """The 1.5B's bookmarks build at ec2b586: app/routes.py did `from app.main import app`
    and `app.include_router(router)` itself, app.main imported nothing, and the harness's
    wiring made an import cycle that broke the suite, so it was rolled back: COMPLETE, and
    every bookmark route answered 404 on main. The registration moves to the entry point."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "R", "description": "an APIRouter named router in app.routes with GET /items",
         "depends_on": []}]}
    agents = {"task:R": [f"```python\n{ROUTES_TEST}```",
                         file_reply(("app/routes.py", SELF_REGISTERING))],
              "integration": ["DONE"]}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final
    routes = (built.out / "app" / "routes.py").read_text()
    assert "app.main" not in routes and "include_router" not in routes
    assert "def listed():" in routes and "router = APIRouter(prefix='/items')" in routes
    main = (built.out / "app" / "main.py").read_text()
    assert "app.include_router(routes_router)" in main
    assert any("moved there from app/routes.py" in note
               for note in built.final["integration"]["notes"])
    for name, text in (("test_served.py", SERVED), ("test_routes_first.py", ROUTES_FIRST)):
        (built.out / "tests" / name).write_text(text)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              f"tests/{name}"], cwd=built.out, capture_output=True, text=True,
                             check=False)
        assert run.returncode == 0, run.stdout


def test_only_a_registration_on_the_entry_points_import_is_taken_out():
    assert without_self_registration(SELF_REGISTERING, "app.main") == (
        "from fastapi import APIRouter\n\n\nrouter = APIRouter(prefix='/items')\n\n\n"
        "@router.get('')\ndef listed():\n    return []\n\n\n")
    # the app is used for more than registering: left as it is
    uses = SELF_REGISTERING + "\n\n@app.get('/ping')\ndef ping():\n    return 1\n"
    assert without_self_registration(uses, "app.main") is None
    # the import brings more than the app: left as it is
    more = SELF_REGISTERING.replace("import app\n", "import app, settings\n")
    assert without_self_registration(more, "app.main") is None
    # registering on an app of another module, or nothing to take out
    assert without_self_registration(SELF_REGISTERING, "app.server") is None
    assert without_self_registration(ROUTES, "app.main") is None
    assert without_self_registration("def f(:\n", "app.main") is None
