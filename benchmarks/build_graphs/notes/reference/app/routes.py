from fastapi import APIRouter, HTTPException

from app.models import Note, NoteIn
from app.storage import NoteStore
from app.text import word_count

router = APIRouter(prefix="/notes")
store = NoteStore()


@router.post("", status_code=201)
def create(data: NoteIn) -> Note:
    return store.add(data)


@router.get("")
def list_notes(q: str | None = None) -> list[Note]:
    return store.search(q) if q is not None else store.search("")


def _found(note_id: int) -> Note:
    note = store.get(note_id)
    if note is None:
        raise HTTPException(404, "note not found")
    return note


@router.get("/{note_id}")
def read(note_id: int) -> Note:
    return _found(note_id)


@router.get("/{note_id}/stats")
def stats(note_id: int) -> dict:
    return {"words": word_count(_found(note_id).body)}
