"""After approval: atomic writes, the history appended (a corrupt file moved aside, not
lost), nothing written over a file someone changed meanwhile; --approve and model errors."""

from __future__ import annotations

import json

from review_helpers import BUGGY, FIX_EDIT, FIXED, approve, tree_hash

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, start_review


def test_a_corrupt_history_file_is_moved_aside_with_a_warning(workspace, store):
    (workspace / ".ai_context.json").write_text("{not json")
    llm = ScriptedLLM([approve(), FIX_EDIT, approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store,
                       approve=True)
    assert out.status == "applied" and out.written == ["calc.py"]
    [aside] = list(workspace.glob(".ai_context.json.corrupt-*"))
    assert aside.read_text() == "{not json"
    history = json.loads((workspace / ".ai_context.json").read_text())["workflow_history"]
    assert [h["status"] for h in history] == ["applied"]
    assert any("moved aside" in line for line in out.error_log)


def test_approve_applies_without_pausing_and_reports_callbacks(workspace, store):
    seen: list[str] = []
    events = []
    llm = ScriptedLLM([approve(), FIX_EDIT, approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store,
                       approve=True, listen=events.append, on_run_id=seen.append)
    assert seen == [out.run_id] and out.status == "applied"
    assert (workspace / "calc.py").read_text() == FIXED
    assert all(e.run_id == out.run_id for e in events)
    assert store.get_run(out.run_id).status == "succeeded"
    assert store.get_run(out.run_id).result["written"] == ["calc.py"]


def test_nothing_is_written_over_a_file_changed_while_waiting(workspace, store):
    llm = ScriptedLLM([approve(), FIX_EDIT, approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    (workspace / "calc.py").write_text(BUGGY + "# edited by a person meanwhile\n")
    before = tree_hash(workspace)
    done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.status == "failed" and "changed on disk" in done.message
    assert done.written == [] and tree_hash(workspace) == before


def test_a_model_error_ends_the_run_as_error_in_one_line(workspace, store):
    llm = ScriptedLLM([{"raise": "BackendUnreachable", "message": "server down"}])
    before = tree_hash(workspace)
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    assert out.status == "error" and "server down" in out.message
    assert "\n" not in out.message and f"--resume {out.run_id}" in out.message
    assert store.get_run(out.run_id).status == "interrupted"  # resumable (resume_error.py)
    assert tree_hash(workspace) == before


def test_a_resumed_run_does_not_append_its_history_entry_twice(workspace, store):
    llm = ScriptedLLM([approve(), FIX_EDIT, approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    assert out.status == "awaiting_approval"
    # what a first persistence attempt left before a kill (before its checkpoint was saved):
    # the file written and this run's entry appended
    (workspace / "calc.py").write_text(FIXED)
    earlier = {"run_id": "review-earlier", "status": "applied", "artifacts": ["x.py"]}
    ours = {"run_id": out.run_id, "status": "applied", "artifacts": ["calc.py"]}
    (workspace / ".ai_context.json").write_text(
        json.dumps({"workflow_history": [earlier, ours], "keep": 1}))
    done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.status == "applied" and done.written == ["calc.py"]
    context = json.loads((workspace / ".ai_context.json").read_text())
    assert context == {"workflow_history": [earlier, ours], "keep": 1}
    # another run's entry last: this run's entry is appended as usual
    llm = ScriptedLLM([approve()])
    again = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store,
                         approve=True)
    history = json.loads((workspace / ".ai_context.json").read_text())["workflow_history"]
    assert [h["run_id"] for h in history] == ["review-earlier", out.run_id, again.run_id]
