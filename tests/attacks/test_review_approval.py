"""What a person approves is exactly what is written (issue 50, items 3, 4 and 7).

- The approval view shows the bytes the model added, even when they look like a secret
  (redaction, meant for the store's summary, hid `db_password="$(touch ...)"` from the
  approver while the file got it).
- An approval names the digest of the diff the person saw: after someone else's reject
  refined the change (version 2 adds `os.system`), an approval of version 1 is refused and
  nothing is written; persistence checks the digest of what it writes once more.
- The write after approval goes through the workspace directory the run started in: a
  workspace swapped for a symlink (or another directory) while the run waited is refused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, start_review, waiting_review
from codeloop.store import RunNotResumable, RunStore

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
APPROVE = {"json": {"approved": True, "issues": [], "suggestions": []}}
SECRET_LINE = 'db_password = "$(touch/tmp/Pwn3dXq9z)"'
SECRET_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n\n\n"
               f"{SECRET_LINE}\n>>>>>>> REPLACE\n")
FIX_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
            ">>>>>>> REPLACE\n")
SYSTEM_EDIT = ("calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n=======\nimport os\n\n\n"
               "def add(a, b):\n    os.system('touch /tmp/pwned-by-review')\n"
               ">>>>>>> REPLACE\n")


def _tree(root: Path) -> str:
    digest = hashlib.sha256()
    for current, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = Path(current, name)
            digest.update(str(path.relative_to(root)).encode())
            if not path.is_symlink():
                digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def ws(tmp_path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text(BUGGY)
    (ws / "test_calc.py").write_text(TEST)
    return ws


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "runs.db") as s:
        yield s


def test_the_approval_view_shows_the_secret_looking_bytes_the_model_added(ws, store):
    llm = ScriptedLLM([APPROVE, SECRET_EDIT, APPROVE])
    out = start_review(ReviewRequest(workspace=ws, files=["calc.py"]), llm, store)
    assert out.status == "awaiting_approval"
    # from another process, hours later: what the run shows is what it will write
    shown = waiting_review(store, out.run_id)
    [diff] = shown.pending_diffs
    assert f"+{SECRET_LINE}\n" in diff["diff_hunks"]
    assert SECRET_LINE in diff["modified_content"]
    assert "REDACTED" not in diff["diff_hunks"]
    assert shown.diff_digest == out.diff_digest
    done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store,
                         digest=shown.diff_digest)
    assert done.status == "applied"
    assert (ws / "calc.py").read_text() == diff["modified_content"]


def _two_versions(ws, store):
    """A run waiting with version 1 (the fix); after a reject, waiting with version 2 (the
    fix plus an os.system line). Returns (run id, digest 1, digest 2, llm)."""
    llm = ScriptedLLM([APPROVE, FIX_EDIT, APPROVE, SYSTEM_EDIT, APPROVE])
    first = start_review(ReviewRequest(workspace=ws, files=["calc.py"]), llm, store)
    assert first.status == "awaiting_approval"
    second = decide_review(first.run_id, approved=False, message="use the shell", llm=llm,
                           store=store, digest=first.diff_digest)
    assert second.status == "awaiting_approval"
    assert "os.system" in second.pending_diffs[0]["modified_content"]
    assert first.diff_digest != second.diff_digest
    return first.run_id, first.diff_digest, second.diff_digest, llm


def test_an_approval_of_the_diff_before_a_reject_writes_nothing(ws, store):
    run_id, seen, current, llm = _two_versions(ws, store)
    before = _tree(ws)
    with pytest.raises(RunNotResumable, match="not the one you saw"):
        decide_review(run_id, approved=True, message="LGTM (of version 1)", llm=llm,
                      store=store, digest=seen)
    assert _tree(ws) == before
    assert store.get_run(run_id).status == "awaiting_approval"  # still waiting, decidable
    with pytest.raises(RunNotResumable, match="digest"):
        decide_review(run_id, approved=True, message="no digest", llm=llm, store=store)
    assert _tree(ws) == before and store.get_run(run_id).status == "awaiting_approval"
    done = decide_review(run_id, approved=True, message="seen version 2", llm=llm,
                         store=store, digest=current)
    assert done.status == "applied" and "os.system" in (ws / "calc.py").read_text()


def test_persistence_refuses_to_write_what_the_approval_did_not_name(ws, store):
    """The graph resumed directly with a wrong digest (as a buggy front end could):
    persistence recomputes the digest of what it would write and writes nothing."""
    from langgraph.types import Command

    from codeloop.events import EventBus
    from codeloop.review.context import ReviewContext
    from codeloop.review.graph import build_graph

    llm = ScriptedLLM([APPROVE, FIX_EDIT, APPROVE])
    out = start_review(ReviewRequest(workspace=ws, files=["calc.py"]), llm, store)
    before = _tree(ws)
    graph = build_graph(ReviewContext.from_settings(llm, EventBus()), store.checkpointer())
    config = {"configurable": {"thread_id": out.run_id}}
    graph.invoke(Command(resume={"approved": True, "message": "", "digest": "0" * 64}),
                 config, durability="sync")
    values = graph.get_state(config).values
    assert values["workflow_status"] == "failed" and values["written"] == []
    assert "not the diff that was approved" in values["error_log"][-1]
    assert _tree(ws) == before


def _swap_for_symlink(ws: Path, outside: Path) -> None:
    shutil.copytree(ws, outside)  # the same files: the on-disk check alone would pass
    ws.rename(ws.with_name("ws-moved"))
    os.symlink(outside, ws)


def _swap_for_copy(ws: Path, outside: Path) -> None:
    copy = ws.with_name("ws-copy")
    shutil.copytree(ws, copy)
    ws.rename(outside)
    copy.rename(ws)


@pytest.mark.parametrize("swap", [_swap_for_symlink, _swap_for_copy],
                         ids=["symlink", "another-directory"])
def test_a_workspace_swapped_while_waiting_is_not_written_through(ws, store, tmp_path, swap):
    llm = ScriptedLLM([APPROVE, FIX_EDIT, APPROVE])
    out = start_review(ReviewRequest(workspace=ws, files=["calc.py"]), llm, store)
    assert out.status == "awaiting_approval"
    outside = tmp_path / "outside"
    swap(ws, outside)
    before_outside, before_ws = _tree(outside), _tree(ws)
    done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.status == "failed" and done.written == []
    assert "not the directory the run started in" in done.message
    assert _tree(outside) == before_outside and _tree(ws) == before_ws
    assert (outside / "calc.py").read_text() == BUGGY
