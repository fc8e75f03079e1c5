"""The harness builds a task's pydantic models beside the model's tests (model_smoke.py): the
1.5B's notes N2 (59a3c48) merged a Note whose slug validator called itself; its own tests
built no Note with a slug, and every test of the store task after it failed to collect."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.model_smoke import is_models_smoke

REQUEST = {"tech_stack": "python-api", "tasks": [{
    "id": "N", "description": "Note data model in app.models: NoteIn (title 1-80 characters) "
                              "and Note (NoteIn with an integer id and a slug string), as "
                              "pydantic models", "depends_on": []}]}
TESTS = ("from app.models import Note, NoteIn\n\n\ndef test_note_in():\n"
         "    assert NoteIn(title='a').title == 'a'\n\n\ndef test_note():\n"
         "    assert Note(title='a', id=1).id == 1\n")
RECURSIVE = ("from pydantic import BaseModel, Field, field_validator\n\n\n"
             "class NoteIn(BaseModel):\n    title: str = Field(min_length=1, max_length=80)\n\n\n"
             "class Note(NoteIn):\n    id: int\n    slug: str = ''\n\n"
             "    @field_validator('slug')\n    @classmethod\n    def slugify(cls, value):\n"
             "        return cls.slugify(value)\n")
RIGHT = RECURSIVE.replace("return cls.slugify(value)", "return value.lower()")


def test_a_model_that_cannot_be_built_is_not_merged(build):
    agents = {"task:N": [reply_with_tests(TESTS), file_reply(("app/models.py", RECURSIVE)),
                         file_reply(("app/models.py", RIGHT))],
              "integration": no_wiring()}
    built = build(REQUEST, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    assert (built.out / "app" / "models.py").read_text() == RIGHT
    smoke = (built.out / "tests" / "test_n_model_smoke.py").read_text()
    assert "MODELS = ['NoteIn', 'Note']" in smoke
    assert (built.out / "tests" / "codeloop_route_calls.py").is_file()
    second = built.llm_for("task:N").calls[2][-1].content
    assert "RecursionError" in second
    assert any("the harness builds the task's models beside the tests" in line
               for line in built.progress())
    assert is_models_smoke("tests/test_models_model_smoke.py")
    assert not is_models_smoke("tests/test_models.py")
