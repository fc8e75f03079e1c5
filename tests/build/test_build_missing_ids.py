"""A 404 test asking for an id another test of the file creates asks for one none creates
(build/missing_ids.py): notes N4's tests at 4e021a9 (and six routes tasks before) failed on
right routes because of it."""

from __future__ import annotations

import subprocess
import sys

from codeloop.build.missing_ids import with_unused_missing_ids

# the 1.5B's tests for notes N4 (build benchmark at 4e021a9), cut to the tests in question
TESTS = '''from fastapi import FastAPI, status
from fastapi.testclient import TestClient
from routes import router

app = FastAPI()
app.include_router(router)
client = TestClient(app)


def test_create_note():
    response = client.post("/notes", json={"title": "Test Note", "body": "A test note."})
    assert response.status_code == status.HTTP_201_CREATED
    assert response.json()["id"] == 1


def test_get_note_stats_missing():
    response = client.get("/notes/1/stats")
    assert response.status_code == status.HTTP_404_NOT_FOUND


def test_get_note_missing():
    response = client.get('/notes/1')
    assert response.status_code == 404
'''
RIGHT = '''from fastapi import APIRouter, HTTPException

router = APIRouter()
notes: dict[int, dict] = {}  # one store for the process, as the task says


@router.post("/notes", status_code=201)
def create(note: dict):
    note = {**note, "id": len(notes) + 1}
    notes[note["id"]] = note
    return note


@router.get("/notes/{note_id}")
def get(note_id: int):
    if note_id not in notes:
        raise HTTPException(404)
    return notes[note_id]


@router.get("/notes/{note_id}/stats")
def stats(note_id: int):
    return {"words": len(get(note_id)["body"].split())}
'''
# routes that answer every id, as if it were there: the 404 tests must still fail
WRONG = RIGHT.replace('''    if note_id not in notes:
        raise HTTPException(404)
    return notes[note_id]''', '''    return notes.get(note_id, {"id": note_id, "body": ""})''')


def _pytest(tmp_path, tests: str, code: str) -> subprocess.CompletedProcess:
    (tmp_path / "routes.py").write_text(code)
    (tmp_path / "test_routes.py").write_text(tests)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_routes.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_missing_id_is_one_no_test_creates_and_right_routes_pass(tmp_path):
    written = _pytest(tmp_path, TESTS, RIGHT)
    assert written.returncode == 1 and "2 failed, 1 passed" in written.stdout  # as written
    mended, notes = with_unused_missing_ids(TESTS)
    assert '    response = client.get("/notes/999999/stats")\n' in mended
    assert "    response = client.get('/notes/999999')\n" in mended
    assert '"/notes", json=' in mended and '== 1\n' in mended  # the creating test as it was
    assert notes == [
        f"{name} asked for {path} expecting 404, and test_create_note creates records in "
        "the store the tests share: it asks for id 999999 now, one no test creates"
        for name, path in (("test_get_note_stats_missing", "/notes/1/stats"),
                           ("test_get_note_missing", "/notes/1"))]
    assert _pytest(tmp_path, mended, RIGHT).returncode == 0
    wrong = _pytest(tmp_path, mended, WRONG)  # routes that never answer 404 still fail
    assert wrong.returncode == 1 and "2 failed, 1 passed" in wrong.stdout


def test_a_file_that_creates_nothing_or_a_test_that_creates_is_left_alone():
    alone = TESTS.replace('client.post("/notes", json={"title": "Test Note", '
                          '"body": "A test note."})', 'client.get("/notes")')
    assert with_unused_missing_ids(alone) == (alone, [])
    # the test creates, deletes and asks again: its id is its own record's
    own = ('def test_create():\n    client.post("/a", json={})\n\n'
           'def test_delete_then_missing():\n    client.post("/notes", json={})\n'
           '    client.delete("/notes/1")\n    assert client.get("/notes/1").status_code == 404\n')
    assert with_unused_missing_ids(own) == (own, [])
    # a large id, a word, an f-string and a file that does not parse stay as written
    kept = ('def test_create():\n    store.add(x)\n\n'
            'def test_missing():\n    assert client.get("/notes/12345").status_code == 404\n'
            '    assert client.get("/links/missing").status_code == 404\n'
            '    assert client.get(f"/notes/{1}").status_code == 404\n')
    assert with_unused_missing_ids(kept) == (kept, [])
    assert with_unused_missing_ids("def (:\n") == ("def (:\n", [])


def test_a_store_add_counts_as_creating_and_a_delete_is_asked_for_the_unused_id():
    text = ('def test_add(store):\n    store.add(item)\n\n'
            'def test_delete_missing(client):\n'
            '    r = client.delete("/bookmarks/1")\n'
            '    assert r.status_code == status.HTTP_404_NOT_FOUND\n')
    mended, notes = with_unused_missing_ids(text)
    assert 'client.delete("/bookmarks/999999")' in mended and len(notes) == 1
