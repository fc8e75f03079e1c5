from pydantic import BaseModel, Field


class NoteIn(BaseModel):
    title: str = Field(min_length=1, max_length=80)
    body: str = ""


class Note(NoteIn):
    id: int
    slug: str
