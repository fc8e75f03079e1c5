"""Routes that make their store per request share one (shared_store.py): the 1.5B's todo T3,
bookmarks B3 and notes N4 made `NoteStore()` in each route or took it by `Depends()`, and
what one request added the next could not find."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from written_package import import_written

from codeloop.build.shared_store import shared_store

ROUTES = '''from fastapi import APIRouter, Depends
from app.models import Note, NoteIn
from app.storage import NoteStore

router = APIRouter(prefix="/notes")


@router.post("", status_code=201)
def create(note_in: NoteIn) -> Note:
    return NoteStore().add(note_in)


@router.get("/{note_id}")
def one(note_id: int) -> Note:
    store = NoteStore()
    return store.get(note_id)


@router.get("")
def listed(store: NoteStore = Depends()) -> list[Note]:
    return store.all()
'''
MODELS = ("from pydantic import BaseModel\n\n\nclass NoteIn(BaseModel):\n    title: str\n\n\n"
          "class Note(NoteIn):\n    id: int\n")
STORAGE = ("from app.models import Note, NoteIn\n\n\nclass NoteStore:\n    def __init__(self):\n"
           "        self.notes = {}\n\n    def add(self, note_in: NoteIn) -> Note:\n"
           "        note = Note(id=len(self.notes) + 1, **note_in.model_dump())\n"
           "        self.notes[note.id] = note\n        return note\n\n"
           "    def get(self, note_id):\n        return self.notes.get(note_id)\n\n"
           "    def all(self):\n        return list(self.notes.values())\n")


def _app(tmp_path, monkeypatch, routes: str) -> TestClient:
    router = import_written(tmp_path, monkeypatch, {"models": MODELS, "storage": STORAGE,
                                                    "routes": routes}, "app.routes").router
    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def test_the_routes_share_one_store_and_what_is_posted_is_found(tmp_path, monkeypatch):
    before = _app(tmp_path / "before", monkeypatch, ROUTES)
    before.post("/notes", json={"title": "a"})
    assert before.get("/notes").json() == []  # the bug: a store per request

    mended, notes = shared_store("app/routes.py", ROUTES, "app", {"Note", "NoteIn"})
    assert "note_store = NoteStore()  # one store for every request (codeloop)" in mended
    assert "store = note_store" in mended and "Depends(lambda: note_store)" in mended
    assert len(notes) == 1 and "one module-level `note_store = NoteStore()`" in notes[0]
    after = _app(tmp_path / "after", monkeypatch, mended)
    assert after.post("/notes", json={"title": "a"}).status_code == 201
    assert after.get("/notes").json() == [{"title": "a", "id": 1}]
    assert after.get("/notes/1").json() == {"title": "a", "id": 1}


def test_a_store_made_once_models_and_modules_without_a_router_are_left_alone():
    once = ROUTES.replace('router = APIRouter(prefix="/notes")',
                          'router = APIRouter(prefix="/notes")\nstore = NoteStore()')
    assert shared_store("app/routes.py", once, "app", set()) == (once, [])
    no_router = ROUTES.replace('router = APIRouter(prefix="/notes")\n', "")
    assert shared_store("app/routes.py", no_router, "app", set()) == (no_router, [])
    model_only = ("from fastapi import APIRouter\nfrom app.models import Note\n\n"
                  "router = APIRouter()\n\n\ndef f():\n    return Note()\n")
    assert shared_store("app/routes.py", model_only, "app", {"Note"}) == (model_only, [])
    assert shared_store("app/routes.py", "def (:\n", "app", set()) == ("def (:\n", [])
