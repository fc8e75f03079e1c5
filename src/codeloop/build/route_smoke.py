"""The part of a routes task's contract test (contract_tests.py) that calls the routes, in a
helper module written beside it (project_files/codeloop_route_calls.py): each
promised route is called once through FastAPI's TestClient, on modules imported afresh (the
suite's own module-level stores are not touched), with a body built from the route's
OpenAPI schema; none may raise, and an item a POST returns is read back by its id.

Where the task's text promises a status in the parenthesis after a route ("POST /bookmarks
(201, ...)", "GET /notes/{note_id} (404 when missing)"), a success must answer it and an
unknown id must answer the missing status.

Measured on the 1.5B: both routes tasks that fell back to the contract test merged with
routes that could not answer. Bookmarks' B3 called `store.create`, `store.get_all` and
`get_by_tag` (BookmarkStore has add, all, with_tag) on a `Depends()` store made afresh for
every request; todo's T3 answered GET /todos with a 500. A contract that only says the
routes exist let both onto main, and every hidden test of those routes failed.
"""

from __future__ import annotations

import re
from importlib import resources

from codeloop.build.contract import route_shape

# "POST /bookmarks (201, returns the Bookmark; 422 for a bad url)": the parenthesis after it
_PROMISE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\s+(/[^\s,;()'\"]*)\s*\(([^()]*)\)")
_SUCCESS = re.compile(r"\b(2\d\d)\b")
_MISSING = re.compile(r"\b(404)\b[^;,)]*\b(?:missing|unknown|not found|no such)\b")


def promised_statuses(text: str) -> dict[tuple[str, str], dict[str, int]]:
    """{(method, path with {} for parameters): {"ok": the status of a success, "missing":
    the status for an unknown item}} as the task's text gives them, in the parenthesis after
    the route; a route with neither is left out."""
    found: dict[tuple[str, str], dict[str, int]] = {}
    for match in _PROMISE.finditer(text):
        said = match.group(3)
        promise: dict[str, int] = {}
        if (ok := _SUCCESS.search(said)) is not None:
            promise["ok"] = int(ok.group(1))
        if "{" in match.group(2) and (missing := _MISSING.search(said)) is not None:
            promise["missing"] = int(missing.group(1))
        if promise:
            route = (match.group(1), route_shape(match.group(2)))
            found.setdefault(route, promise)
    return found


HELPER_FILE = "codeloop_route_calls.py"  # beside the contract test; no test_ prefix


def route_calls_helper() -> str:
    """The helper module's text (project_files/codeloop_route_calls.py), as written into a
    project: the calls, kept out of the test file the code prompt shows (7 kB, ~2,000
    tokens of prefill on every code round of a routes task)."""
    return resources.files("codeloop.build.project_files").joinpath(HELPER_FILE).read_text(
        encoding="utf-8")
