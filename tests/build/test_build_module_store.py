"""Routes that call a store's methods on its module (`storage.add(...)`) get one store
(build/module_store.py): notes N4's routes at 48067b3 (and at 3f37f7b) raised
AttributeError on every request; mended, they serve and keep what is posted."""

from __future__ import annotations

from fastapi.testclient import TestClient
from written_package import import_written

from codeloop.build.code_mends import mended_code
from codeloop.build.contract import TaskContract
from codeloop.build.module_store import module_used_as_store

MODELS = '''from pydantic import BaseModel, Field


class NoteIn(BaseModel):
    title: str = Field(min_length=1, max_length=80)
    body: str = Field(default="")


class Note(NoteIn):
    id: int
'''
STORAGE = '''from typing import Dict, List, Optional
from app.models import NoteIn, Note


class NoteStore:
    def __init__(self):
        self.store: Dict[int, Note] = {}

    def add(self, note_in: NoteIn) -> Note:
        note = Note(**{**note_in.model_dump(), 'id': len(self.store) + 1})
        self.store[note.id] = note
        return note

    def get(self, id: int) -> Optional[Note]:
        return self.store.get(id)
'''
# the 1.5B's routes for N4 (build benchmark at 48067b3), its stats route left out
ROUTES = '''from typing import Optional
from fastapi import APIRouter, HTTPException, status
from app import models, storage

router = APIRouter(prefix='/notes')

@router.post("/", status_code=status.HTTP_201_CREATED)
def create_note(note_in: models.NoteIn):
    note = storage.add(note_in)
    return note

@router.get("/", response_model=list[models.Note])
def get_notes(q: Optional[str] = None):
    return list(storage.store.values())

@router.get("/{note_id}", response_model=models.Note)
def get_note(note_id: int):
    note = storage.get(note_id)
    if note is None:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    return note
'''
MAIN = '''from fastapi import FastAPI
from app.routes import router

app = FastAPI()
app.include_router(router)
'''
FILES = {"app/models.py": MODELS, "app/storage.py": STORAGE}
ROUTES_TASK = TaskContract(task_id="N4", language="python", src_dir="app",
                           test_path="tests/test_routes.py", modules=["app/routes.py"],
                           modules_named=True, names=["router"], endpoints=["POST /notes"],
                           serves_http=True, built={}, built_by={}, served=[],
                           models=("Note", "NoteIn"))


def _client(tmp_path, monkeypatch, routes: str) -> TestClient:
    main = import_written(tmp_path, monkeypatch, {"models": MODELS, "storage": STORAGE,
                                                  "routes": routes, "main": MAIN}, "app.main")
    return TestClient(main.app, raise_server_exceptions=False)


def test_the_routes_share_one_store_and_keep_what_is_posted(tmp_path, monkeypatch):
    mended, notes = mended_code("app/routes.py", ROUTES, ROUTES_TASK, FILES.get)
    assert "store = storage.NoteStore()  # the store the routes share (codeloop)\n" in mended
    assert "note = store.add(note_in)" in mended and "store.store.values()" in mended
    assert notes == [("app/routes.py: the routes called add, get, store on the module "
                     "app.storage, which has them only on its class NoteStore: the harness "
                     "made one `store = storage.NoteStore()` and the routes use it")]
    client = _client(tmp_path, monkeypatch, mended)
    posted = client.post("/notes/", json={"title": "a"})
    assert posted.status_code == 201 and posted.json()["id"] == 1
    assert client.get("/notes/1").json()["title"] == "a"
    assert [n["id"] for n in client.get("/notes/").json()] == [1]
    assert client.get("/notes/2").status_code == 404


def test_as_written_every_route_fails(tmp_path, monkeypatch):
    client = _client(tmp_path, monkeypatch, ROUTES)
    assert client.post("/notes/", json={"title": "a"}).status_code == 500


def test_what_the_module_defines_or_no_one_class_has_is_left_alone():
    read = FILES.get
    own = STORAGE + "\n\nstore = NoteStore()\n\n\ndef add(note_in):\n    return store.add(note_in)\n"
    uses_module = ROUTES.replace("storage.get(note_id)", "storage.store.get(note_id)")
    assert module_used_as_store("app/routes.py", uses_module, "app",
                                {**FILES, "app/storage.py": own}.get) == (uses_module, [])
    typo = ROUTES.replace("storage.get(note_id)", "storage.fetch(note_id)")
    assert module_used_as_store("app/routes.py", typo, "app", read) == (typo, [])
    no_router = ROUTES.replace("router = APIRouter(prefix='/notes')", "router = None")
    assert module_used_as_store("app/routes.py", no_router, "app", read) == (no_router, [])
    two = STORAGE + "\n\nclass Other:\n    def add(self, x):\n        return x\n"
    assert module_used_as_store("app/routes.py", ROUTES, "app",
                                {**FILES, "app/storage.py": two}.get) == (ROUTES, [])
