"""A top-level call that uses what the module binds further down is moved below it
(build/late_statements.py); the 1.5B's routes module that registered its router before
defining it (bookmarks B3 at 48067b3) imports after the mend."""

from __future__ import annotations

import subprocess
import sys

from codeloop.build.code_mends import mended_code
from codeloop.build.contract import TaskContract
from codeloop.build.late_statements import with_late_calls_moved

# The 1.5B's reply, as written (its imports trimmed to what runs without the project).
ROUTES = '''from fastapi import APIRouter, FastAPI

app = FastAPI()

app.include_router(router)

# the task's router
router = APIRouter(
    prefix='/bookmarks',
    tags=['Bookmarks']
)

store = {}

@router.get('/')
def get_bookmarks():
    return list(store.values())
'''


def test_the_registration_moves_below_the_router_and_the_module_imports(tmp_path):
    mended, notes = with_late_calls_moved("app/routes.py", ROUTES)
    assert notes == [("app/routes.py: `app.include_router(router)` used names the module "
                     "defines only below it; the harness moved it after them")]
    # after the routes too: a router included before them would be served empty
    assert mended.index("def get_bookmarks") < mended.index("app.include_router(router)")
    assert "# the task's router\nrouter = APIRouter(" in mended  # its comment goes with it
    assert sorted(mended.splitlines()) == sorted(ROUTES.splitlines())  # nothing lost
    (tmp_path / "routes.py").write_text(mended)
    run = subprocess.run([sys.executable, "-c", ("import routes; "
                          "from fastapi.testclient import TestClient; "
                          "print(TestClient(routes.app).get('/bookmarks/').json())")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
    (tmp_path / "routes.py").write_text(ROUTES)
    before = subprocess.run([sys.executable, "-c", "import routes"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, check=False)
    assert "NameError: name 'router' is not defined" in before.stderr


def test_calls_in_their_place_and_what_is_not_a_bare_call_stay():
    ordered = "import logging\nlog = logging.getLogger()\nlog.info('x')\n"
    assert with_late_calls_moved("m.py", ordered) == (ordered, [])
    # an assignment that uses a later name may be what something below needs: not moved
    assigned = "handler = make()\n\ndef make():\n    return 1\n"
    assert with_late_calls_moved("m.py", assigned) == (assigned, [])
    # bound earlier in a branch: the call may well be right where it is
    branch = "if True:\n    x = 1\nprint(x)\nx = 2\n"
    assert with_late_calls_moved("m.py", branch) == (branch, [])
    assert with_late_calls_moved("m.py", "def (:\n") == ("def (:\n", [])


def test_a_call_with_several_late_names_goes_after_the_last():
    text = "setup(a, b)\na = 1\nb = 2\nc = 3\n"
    mended, notes = with_late_calls_moved("m.py", text)
    assert mended == "a = 1\nb = 2\nsetup(a, b)\nc = 3\n" and len(notes) == 1
    used = "show(b)\nb = []\nb.append(1)\nend = 1\n"
    assert with_late_calls_moved("m.py", used)[0] == "b = []\nb.append(1)\nshow(b)\nend = 1\n"


def test_the_code_mends_apply_it_to_a_routes_task_before_the_write():
    routes = TaskContract(task_id="B3", language="python", src_dir="app",
                          test_path="tests/test_routes.py", modules=["app/routes.py"],
                          modules_named=True, names=["router"], endpoints=[],
                          serves_http=True, built={}, built_by={}, served=[], models=())
    mended, notes = mended_code("app/routes.py", ROUTES, routes, {}.get)
    assert mended.rstrip().endswith("app.include_router(router)")
    assert any("the harness moved it after them" in note for note in notes)
