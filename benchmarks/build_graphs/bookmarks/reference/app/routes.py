from fastapi import APIRouter, HTTPException, Response

from app.models import Bookmark, BookmarkIn
from app.storage import BookmarkStore

router = APIRouter(prefix="/bookmarks")
store = BookmarkStore()


@router.post("", status_code=201)
def create(data: BookmarkIn) -> Bookmark:
    return store.add(data)


@router.get("")
def list_all(tag: str | None = None) -> list[Bookmark]:
    return store.with_tag(tag) if tag is not None else store.all()


@router.get("/{bookmark_id}")
def read(bookmark_id: int) -> Bookmark:
    found = store.get(bookmark_id)
    if found is None:
        raise HTTPException(404, "bookmark not found")
    return found


@router.delete("/{bookmark_id}", status_code=204)
def delete(bookmark_id: int) -> Response:
    if not store.delete(bookmark_id):
        raise HTTPException(404, "bookmark not found")
    return Response(status_code=204)
