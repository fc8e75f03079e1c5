"""Hidden acceptance tests of the notes graph (written before any run)."""

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError


def test_slugify():
    from app.text import slugify

    assert slugify("Hello, World!") == "hello-world"
    assert slugify("  Many   spaces -- and_symbols ") == "many-spaces-and-symbols"
    assert slugify("Ünïcode 2024") == "n-code-2024"


def test_word_count():
    from app.text import word_count

    assert word_count("") == 0
    assert word_count("one  two\nthree\tfour ") == 4


def test_note_models():
    from app.models import Note, NoteIn

    assert NoteIn(title="t").body == ""
    with pytest.raises(ValidationError):
        NoteIn(title="")
    with pytest.raises(ValidationError):
        NoteIn(title="x" * 81)
    note = Note(id=1, slug="t", title="t", body="b")
    assert (note.id, note.slug) == (1, "t")


def _store():
    from app.models import NoteIn
    from app.storage import NoteStore

    store = NoteStore()
    store.add(NoteIn(title="Shopping List", body="milk and eggs"))
    store.add(NoteIn(title="Ideas", body="A shopping app"))
    store.add(NoteIn(title="Other"))
    return store


def test_store_ids_and_slugs():
    store = _store()
    assert store.get(1).slug == "shopping-list"
    assert store.get(3).id == 3
    assert store.get(4) is None
    assert store.by_slug("ideas").id == 2
    assert store.by_slug("nothing") is None


def test_store_search_ignores_case():
    store = _store()
    assert [n.id for n in store.search("SHOPPING")] == [1, 2]
    assert [n.id for n in store.search("eggs")] == [1]
    assert store.search("zebra") == []


def _client():
    from app.main import app

    return TestClient(app)


def test_post_and_get_a_note():
    client = _client()
    made = client.post("/notes", json={"title": "My Note", "body": "a b c"})
    assert made.status_code == 201
    body = made.json()
    assert body["slug"] == "my-note"
    assert client.get(f"/notes/{body['id']}").json()["title"] == "My Note"


def test_empty_title_is_422_and_missing_is_404():
    client = _client()
    assert client.post("/notes", json={"title": ""}).status_code == 422
    assert client.get("/notes/99999").status_code == 404
    assert client.get("/notes/99999/stats").status_code == 404


def test_list_and_search_over_http():
    client = _client()
    client.post("/notes", json={"title": "Qwxyz unique", "body": ""})
    assert any(n["title"] == "Qwxyz unique" for n in client.get("/notes").json())
    found = client.get("/notes", params={"q": "qwxyz"}).json()
    assert [n["title"] for n in found] == ["Qwxyz unique"]


def test_stats_over_http():
    client = _client()
    note_id = client.post("/notes", json={"title": "S", "body": "one two three"}).json()["id"]
    assert client.get(f"/notes/{note_id}/stats").json() == {"words": 3}
