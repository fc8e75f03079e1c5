"""The review state: every field set by create_initial_state, and the reducers."""

from __future__ import annotations

import typing

from codeloop.review.state import RESET, ReviewState, create_initial_state, reset_or_append


def test_a_fresh_state_sets_every_field():
    state = create_initial_state(workspace="/ws", run_id="review-1", request="do it",
                                 files=["a.py"], git_rev="HEAD~1", refiner_mode="full",
                                 model="scripted")
    assert set(state) == set(typing.get_type_hints(ReviewState))
    assert state == {
        "run_id": "review-1", "workspace": "/ws", "workspace_id": [], "request": "do it",
        "files": ["a.py"],
        "git_rev": "HEAD~1", "refiner_mode": "full", "model": "scripted",
        "repo_map": "", "originals": {}, "git_diff": "", "history": [], "test_files": [],
        "baseline_tests": {}, "workflow_type": "review", "plan": [], "artifacts": [],
        "security_findings": [], "refused_paths": [], "gate_refusals": [],
        "review_feedback": None, "request_test": None,
        "approval_status": "pending", "workflow_status": "running", "iteration": 0,
        "refinement_iteration": 0, "retry_count": 0, "is_fixed": False, "last_error": None,
        "human_message": "", "approved_digest": "", "written": [], "code_diffs": [],
        "pending_diffs": [],
        "debug_logs": [], "error_log": [], "usage": [], "refinements": [],
    }


def test_list_fields_that_only_grow_have_append_reducers():
    hints = typing.get_type_hints(ReviewState, include_extras=True)
    for name in ("code_diffs", "debug_logs", "error_log", "pending_diffs", "usage",
                 "refinements"):
        assert typing.get_origin(hints[name]) is typing.Annotated, name
    assert hints["pending_diffs"].__metadata__ == (reset_or_append,)


def test_pending_diffs_are_replaced_by_a_reset_update_and_appended_otherwise():
    a, b, c = {"file_path": "a"}, {"file_path": "b"}, {"file_path": "c"}
    assert reset_or_append([a], [b]) == [a, b]
    assert reset_or_append([a, b], [RESET, c]) == [c]
    assert reset_or_append([a], [RESET]) == []
    assert reset_or_append([a], []) == [a]
