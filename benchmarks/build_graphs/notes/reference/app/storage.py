from app.models import Note, NoteIn
from app.text import slugify


class NoteStore:
    def __init__(self) -> None:
        self._notes: dict[int, Note] = {}
        self._next = 1

    def add(self, data: NoteIn) -> Note:
        note = Note(id=self._next, slug=slugify(data.title), **data.model_dump())
        self._notes[note.id] = note
        self._next += 1
        return note

    def get(self, note_id: int) -> Note | None:
        return self._notes.get(note_id)

    def by_slug(self, slug: str) -> Note | None:
        return next((n for n in self._notes.values() if n.slug == slug), None)

    def search(self, query: str) -> list[Note]:
        wanted = query.lower()
        return [n for n in self._notes.values()
                if wanted in n.title.lower() or wanted in n.body.lower()]
