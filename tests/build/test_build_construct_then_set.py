"""A pydantic model built without a required field the next lines set is built with it
(construct_then_set.py): the 1.5B's notes N3 wrote `note = Note(**note_in.dict())` then
`note.id = ...` in all four attempts, and pydantic refused every construction."""

from __future__ import annotations

import pytest
from written_package import import_written

from codeloop.build.code_mends import mended_code
from codeloop.build.construct_then_set import constructed_with_fields
from codeloop.build.contract import TaskContract

MODELS = '''from pydantic import BaseModel, Field


class NoteIn(BaseModel):
    title: str = Field(min_length=1, max_length=80)
    body: str = Field(default="")


class Note(NoteIn):
    id: int
    slug: str = Field(default="")
    words: int = Field(..., ge=0)
'''
STORAGE = '''from app.models import Note, NoteIn
from app.text import slugify


class NoteStore:
    def __init__(self):
        self.notes = {}

    def add(self, note_in: NoteIn) -> Note:
        note = Note(**note_in.dict())
        note.id = len(self.notes) + 1
        note.words = len(note_in.body.split())
        note.slug = slugify(note.title)
        self.notes[note.id] = note
        return note

    def copy(self, note_id: int, title: str) -> Note:
        if note_id in self.notes:
            twin = Note(title=title, words=0)
            twin.id = note_id + 100
            twin.body = "copied"
            return twin
        return None
'''
TEXT = "import re\n\n\ndef slugify(title):\n    return re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')\n"


def _read(files: dict[str, str]):
    return files.get


def _load(tmp_path, monkeypatch, storage: str):
    return import_written(tmp_path, monkeypatch,
                          {"models": MODELS, "text": TEXT, "storage": storage}, "app.storage")


def test_the_model_is_built_with_the_fields_the_next_lines_set(tmp_path, monkeypatch):
    from pydantic import ValidationError
    as_written = _load(tmp_path / "before", monkeypatch, STORAGE)
    with pytest.raises(ValidationError, match="id"):
        as_written.NoteStore().add(as_written.NoteIn(title="Hello, World", body="a b c"))

    mended, notes = constructed_with_fields("app/storage.py", STORAGE, {"Note", "NoteIn"},
                                            _read({"app/models.py": MODELS}))
    assert "note = Note(**{**note_in.dict(), 'id': len(self.notes) + 1, 'words': " \
           "len(note_in.body.split())})" in mended
    # a value that reads the new object stays an assignment after it, as written
    assert "note.slug = slugify(note.title)" in mended
    # keywords, no unpacking: the required field joins them; a field with a default stays
    assert "twin = Note(title=title, words=0, id=note_id + 100)" in mended
    assert 'twin.body = "copied"' in mended
    assert len(notes) == 2 and "Note(...) was built without id, words" in notes[0]

    store_module = _load(tmp_path / "after", monkeypatch, mended)
    store = store_module.NoteStore()
    note = store.add(store_module.NoteIn(title="Hello, World", body="a b c"))
    assert (note.id, note.words, note.slug) == (1, 3, "hello-world")
    assert store.add(store_module.NoteIn(title="Two")).id == 2
    assert store.copy(1, "Twin").model_dump() == {
        "title": "Twin", "body": "copied", "id": 101, "slug": "", "words": 0}


def test_a_mapping_that_holds_the_field_is_overridden_as_the_assignment_would():
    source = ("from app.models import Note\n\n\ndef renumbered(old: Note) -> Note:\n"
              "    new = Note(**old.model_dump())\n    new.id = old.id + 1\n    return new\n")
    mended, notes = constructed_with_fields("app/storage.py", source, {"Note"},
                                            _read({"app/models.py": MODELS}))
    assert "new = Note(**{**old.model_dump(), 'id': old.id + 1})" in mended and notes
    namespace: dict = {}
    exec(compile(MODELS, "models", "exec"), namespace)  # noqa: S102 - our own fixture
    note = namespace["Note"](title="t", id=1, words=0)
    merged = {**note.model_dump(), "id": note.id + 1}
    assert namespace["Note"](**merged).id == 2  # no "multiple values for keyword 'id'"


@pytest.mark.parametrize("source", [
    # the field has a default: the construction works, nothing to do
    ("from app.models import Note\n\ndef f(t):\n    n = Note(title=t, id=1, words=0)\n"
     "    n.slug = 'x'\n    return n\n"),
    # the call gives the field already
    ("from app.models import Note\n\ndef f(t):\n    n = Note(title=t, id=1, words=0)\n"
     "    n.id = 2\n    return n\n"),
    # not a model of the project (a plain class the module does not know)
    ("from app.models import Note\n\ndef f(t):\n    n = Thing(title=t)\n    n.id = 2\n"
     "    return n\n"),
    # a statement between the construction and the assignment
    ("from app.models import Note\n\ndef f(t):\n    n = Note(title=t, words=0)\n"
     "    print(n)\n    n.id = 2\n    return n\n"),
    # two unpacked mappings: not rewritten
    ("from app.models import Note\n\ndef f(a, b):\n    n = Note(**a, **b)\n    n.id = 2\n"
     "    return n\n"),
    # does not parse
    "def f(:\n",
])
def test_what_is_left_as_written(source):
    assert constructed_with_fields("app/storage.py", source, {"Note", "NoteIn"},
                                   _read({"app/models.py": MODELS})) == (source, [])


def test_a_model_whose_definition_is_not_found_is_left_as_written():
    source = ("from app.models import Note\n\ndef f(t):\n    n = Note(title=t)\n"
              "    n.id = 2\n    return n\n")
    assert constructed_with_fields("app/storage.py", source, {"Note"}, _read({})) == (
        source, [])


# the notes graph's store task, its models on main
NOTES_STORE = TaskContract(task_id="N3", language="python", src_dir="app",
                           test_path="tests/test_storage.py", modules=["app/storage.py"],
                           modules_named=True, names=["NoteStore"], endpoints=[],
                           serves_http=False, built={"app/models.py": ["Note", "NoteIn"]},
                           built_by={"app/models.py": "N2"}, served=[],
                           models=("Note", "NoteIn"))


def test_the_task_module_is_mended_before_it_is_written():
    contract = NOTES_STORE
    files = {"app/models.py": MODELS, "app/text.py": TEXT}
    mended, notes = mended_code("app/storage.py", STORAGE, contract, _read(files))
    assert "'id': len(self.notes) + 1" in mended
    assert any("pydantic refuses a model without a required field" in n for n in notes)
    # a test module is never mended
    assert mended_code("tests/test_storage.py", STORAGE, contract, _read(files)) == (
        STORAGE, [])
