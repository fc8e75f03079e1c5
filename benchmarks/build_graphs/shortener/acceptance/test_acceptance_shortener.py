"""Hidden acceptance tests of the shortener graph (written before any run)."""

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError


def test_encode_known_values():
    from app.codes import encode

    assert [encode(0), encode(9), encode(10), encode(61), encode(62)] == \
        ["0", "9", "a", "Z", "10"]


def test_decode_is_the_inverse():
    from app.codes import decode, encode

    assert decode("10") == 62
    for n in (0, 1, 61, 62, 3843, 3844, 123456789):
        assert decode(encode(n)) == n


def test_decode_refuses_other_characters():
    from app.codes import decode

    with pytest.raises(ValueError):
        decode("ab-c")


def test_link_models():
    from app.models import Link, LinkIn

    assert LinkIn(url="https://a.b").url == "https://a.b"
    with pytest.raises(ValidationError):
        LinkIn(url="a.b")
    link = Link(url="http://a.b", code="1")
    assert link.hits == 0


def test_store_codes_follow_the_count():
    from app.codes import encode
    from app.models import LinkIn
    from app.storage import LinkStore

    store = LinkStore()
    codes = [store.add(LinkIn(url=f"http://x{i}.org")).code for i in range(1, 64)]
    assert codes[0] == "1" and codes[61] == encode(62) and len(set(codes)) == 63
    assert store.get("1").url == "http://x1.org"
    assert store.get("nope") is None


def test_store_hits():
    from app.models import LinkIn
    from app.storage import LinkStore

    store = LinkStore()
    code = store.add(LinkIn(url="http://a.b")).code
    assert store.hit(code).hits == 1
    assert store.hit(code).hits == 2
    assert store.get(code).hits == 2
    assert store.hit("missing") is None


def _client():
    from app.main import app

    return TestClient(app)


def test_post_and_get_a_link():
    client = _client()
    made = client.post("/links", json={"url": "https://example.com/long"})
    assert made.status_code == 201
    code = made.json()["code"]
    got = client.get(f"/links/{code}")
    assert got.status_code == 200 and got.json()["url"] == "https://example.com/long"


def test_bad_url_is_422_and_missing_is_404():
    client = _client()
    assert client.post("/links", json={"url": "example"}).status_code == 422
    assert client.get("/links/zzzzzz").status_code == 404
    assert client.post("/links/zzzzzz/hit").status_code == 404


def test_hit_over_http():
    client = _client()
    code = client.post("/links", json={"url": "https://h.org"}).json()["code"]
    assert client.post(f"/links/{code}/hit").json()["hits"] == 1
    assert client.post(f"/links/{code}/hit").json()["hits"] == 2
    assert client.get(f"/links/{code}").json()["hits"] == 2
