"""A task's tests that define their own copy of what they import from the project have the
copy taken out (build/test_copies.py): the 1.5B's notes N2 tests defined `NoteIn` and `Note`
again below `from app.models import NoteIn, Note`, passed whatever the code held, and models
without `body` were merged. Real build: git, sandbox, pytest, scripted agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.contract import TaskContract
from codeloop.build.test_copies import without_own_copies

MODELS_TASK = ("Note data model in app.models: NoteIn (title 1-80 characters, body a string, "
               "empty by default) and Note (NoteIn with an integer id), as pydantic models")
TESTS = ("from pydantic import BaseModel\n\nfrom app.models import Note, NoteIn\n\n\n"
         "class NoteIn(BaseModel):\n    title: str\n    body: str = ''\n\n\n"
         "def test_body_defaults_to_empty():\n    assert NoteIn(title='t').body == ''\n\n\n"
         "def test_note_has_an_id():\n    assert Note(id=1, title='t').id == 1\n")
NO_BODY = ("from pydantic import BaseModel, Field\n\n\nclass NoteIn(BaseModel):\n"
           "    title: str = Field(min_length=1, max_length=80)\n\n\n"
           "class Note(NoteIn):\n    id: int\n")
WITH_BODY = NO_BODY.replace("max_length=80)\n", "max_length=80)\n    body: str = ''\n")


def _contract(**changes) -> TaskContract:
    values = {"task_id": "N2", "language": "python", "src_dir": "app",
              "test_path": "tests/test_models.py", "modules": ["app/models.py"],
              "modules_named": True, "names": ["NoteIn", "Note"], "endpoints": [],
              "serves_http": False, "built": {}, "built_by": {}, "served": []}
    return TaskContract(**{**values, **changes})


def test_a_copy_of_an_imported_project_name_is_taken_out():
    kept, copies = without_own_copies(TESTS, _contract())
    assert copies == ["NoteIn"]
    assert "class NoteIn" not in kept and "from app.models import Note, NoteIn" in kept
    assert "def test_body_defaults_to_empty" in kept and "def test_note_has_an_id" in kept
    # a name imported from outside the project, a test function, a helper of its own: kept
    own = ("from fastapi import FastAPI\nfrom app.models import make\n\n\n"
           "class FastAPI:\n    pass\n\n\ndef helper():\n    return 1\n\n\n"
           "def test_make():\n    assert make() == helper()\n")
    assert without_own_copies(own, _contract()) == (own, [])
    # a decorated copy goes with its decorators; `from app import models` names no copy
    decorated = ("import functools\nfrom app.text import slugify\n\n\n@functools.cache\n"
                 "def slugify(t):\n    return t\n\n\ndef test_s():\n    assert slugify('A')\n")
    kept, copies = without_own_copies(decorated, _contract())
    assert copies == ["slugify"] and "functools.cache" not in kept and "def slugify" not in kept
    assert without_own_copies("def f(:\n", _contract()) == ("def f(:\n", [])
    assert without_own_copies(TESTS, _contract(language="go")) == (TESTS, [])


def test_the_tests_test_the_code_not_their_copy(build):
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "N2", "description": MODELS_TASK, "depends_on": [], "keywords": ["models"]}]}
    agents = {"task:N2": [reply_with_tests(TESTS), file_reply(("app/models.py", NO_BODY)),
                          file_reply(("app/models.py", WITH_BODY))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    tests = (built.out / "tests" / "test_models.py").read_text()
    assert "class NoteIn" not in tests and "def test_body_defaults_to_empty" in tests
    assert "body: str = ''" in (built.out / "app" / "models.py").read_text()
    progress = built.progress()
    assert any("the tests defined their own NoteIn over the import" in line for line in progress)
    # the code without body failed the tests once: they tested the code
    assert any("tests failed" in line for line in progress)
