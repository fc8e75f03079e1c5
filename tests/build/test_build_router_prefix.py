"""A router whose every route writes its prefix again loses the prefix (router_prefix.py):
the 1.5B's bookmarks B3 served /bookmarks/bookmarks and stood by it."""

from __future__ import annotations

from fastapi import FastAPI

from codeloop.build.router_prefix import without_repeated_prefix

DOUBLED = '''from fastapi import APIRouter

router = APIRouter(prefix="/bookmarks", tags=["bookmarks"])


@router.get("/bookmarks")
def listed():
    return []


@router.get("/bookmarks/{bookmark_id}")
def one(bookmark_id: int):
    return {"id": bookmark_id}
'''


def _served(source: str) -> set[str]:
    namespace: dict = {}
    exec(compile(source, "app/routes.py", "exec"), namespace)  # noqa: S102 (our own text)
    app = FastAPI()
    app.include_router(namespace["router"])
    return set(app.openapi()["paths"])


def test_the_repeated_prefix_goes_and_the_routes_are_served_where_promised():
    assert _served(DOUBLED) == {"/bookmarks/bookmarks", "/bookmarks/bookmarks/{bookmark_id}"}
    mended, notes = without_repeated_prefix("app/routes.py", DOUBLED)
    assert 'router = APIRouter(tags=["bookmarks"])' in mended.replace("'", '"')
    assert _served(mended) == {"/bookmarks", "/bookmarks/{bookmark_id}"}
    assert notes == [("app/routes.py: every route of `router` wrote its prefix '/bookmarks' "
                     "again (served at /bookmarks/bookmarks): the harness removed the "
                     "router's prefix")]


def test_a_prefix_the_routes_do_not_repeat_is_kept():
    right = DOUBLED.replace('"/bookmarks/{bookmark_id}"', '"/{bookmark_id}"')
    assert without_repeated_prefix("app/routes.py", right) == (right, [])
    plain = DOUBLED.replace('prefix="/bookmarks", ', "")
    assert without_repeated_prefix("app/routes.py", plain) == (plain, [])
    assert without_repeated_prefix("app/routes.py", "def (:\n") == ("def (:\n", [])
