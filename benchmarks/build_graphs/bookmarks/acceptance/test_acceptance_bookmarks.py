"""Hidden acceptance tests of the bookmarks graph (written before any run)."""

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError


def test_bookmark_in_defaults_tags_to_empty():
    from app.models import BookmarkIn

    item = BookmarkIn(url="https://example.com", title="Example")
    assert item.tags == []


def test_bookmark_in_refuses_a_url_without_http():
    from app.models import BookmarkIn

    with pytest.raises(ValidationError):
        BookmarkIn(url="ftp://example.com", title="x")


def test_bookmark_in_refuses_an_empty_or_long_title():
    from app.models import BookmarkIn

    with pytest.raises(ValidationError):
        BookmarkIn(url="http://a.b", title="")
    with pytest.raises(ValidationError):
        BookmarkIn(url="http://a.b", title="x" * 101)


def test_bookmark_has_an_id():
    from app.models import Bookmark

    bookmark = Bookmark(id=3, url="http://a.b", title="t", tags=["x"])
    assert bookmark.id == 3 and bookmark.tags == ["x"]


def test_store_numbers_from_one_and_gets():
    from app.models import BookmarkIn
    from app.storage import BookmarkStore

    store = BookmarkStore()
    first = store.add(BookmarkIn(url="http://a.b", title="a"))
    second = store.add(BookmarkIn(url="http://c.d", title="c"))
    assert (first.id, second.id) == (1, 2)
    assert store.get(2).title == "c"
    assert store.get(99) is None
    assert sorted(b.id for b in store.all()) == [1, 2]


def test_store_with_tag_and_delete():
    from app.models import BookmarkIn
    from app.storage import BookmarkStore

    store = BookmarkStore()
    store.add(BookmarkIn(url="http://a.b", title="a", tags=["py", "web"]))
    store.add(BookmarkIn(url="http://c.d", title="c", tags=["web"]))
    assert [b.id for b in store.with_tag("py")] == [1]
    assert len(store.with_tag("web")) == 2
    assert store.delete(1) is True
    assert store.delete(1) is False
    assert store.get(1) is None


def _client():
    from app.main import app

    return TestClient(app)


def test_post_then_get_a_bookmark():
    client = _client()
    made = client.post("/bookmarks", json={"url": "https://x.org", "title": "X"})
    assert made.status_code == 201
    body = made.json()
    assert body["url"] == "https://x.org" and isinstance(body["id"], int)
    got = client.get(f"/bookmarks/{body['id']}")
    assert got.status_code == 200 and got.json()["title"] == "X"


def test_post_a_bad_url_is_422():
    assert _client().post("/bookmarks", json={"url": "x.org", "title": "X"}).status_code == 422


def test_missing_bookmark_is_404():
    client = _client()
    assert client.post("/bookmarks", json={"url": "https://m.org", "title": "M"}).status_code == 201
    assert client.get("/bookmarks/987654").status_code == 404


def test_list_filters_by_tag():
    client = _client()
    client.post("/bookmarks", json={"url": "https://t.org", "title": "T", "tags": ["zzq"]})
    listed = client.get("/bookmarks").json()
    assert any(b["title"] == "T" for b in listed)
    tagged = client.get("/bookmarks", params={"tag": "zzq"}).json()
    assert tagged and all("zzq" in b["tags"] for b in tagged)


def test_delete_a_bookmark():
    client = _client()
    made = client.post("/bookmarks", json={"url": "https://d.org", "title": "D"}).json()
    assert client.delete(f"/bookmarks/{made['id']}").status_code == 204
    assert client.get(f"/bookmarks/{made['id']}").status_code == 404
    assert client.delete(f"/bookmarks/{made['id']}").status_code == 404
