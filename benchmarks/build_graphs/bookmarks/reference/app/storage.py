from app.models import Bookmark, BookmarkIn


class BookmarkStore:
    def __init__(self) -> None:
        self._items: dict[int, Bookmark] = {}
        self._next = 1

    def add(self, data: BookmarkIn) -> Bookmark:
        bookmark = Bookmark(id=self._next, **data.model_dump())
        self._items[bookmark.id] = bookmark
        self._next += 1
        return bookmark

    def get(self, bookmark_id: int) -> Bookmark | None:
        return self._items.get(bookmark_id)

    def all(self) -> list[Bookmark]:
        return list(self._items.values())

    def with_tag(self, tag: str) -> list[Bookmark]:
        return [b for b in self._items.values() if tag in b.tags]

    def delete(self, bookmark_id: int) -> bool:
        return self._items.pop(bookmark_id, None) is not None
