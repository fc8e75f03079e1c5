"""The review graph on the scripted model: the loops, the rules the model cannot override,
and nothing written before a person approves."""

from __future__ import annotations

import json

from review_helpers import (
    BUGGY,
    FIX_EDIT,
    FIXED,
    NO_REQUEST_TEST,
    approve,
    disapprove,
    tree_hash,
)

from codeloop.events import EventRecorder
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, start_review, waiting_review
from codeloop.review.state import BLOCKED, MAX_REFINEMENT_ITERATIONS


def _start(workspace, store, replies, **kwargs):
    llm = ScriptedLLM(replies)
    recorder = EventRecorder()
    req = ReviewRequest(workspace=workspace, **kwargs)
    return start_review(req, llm, store, None, listen=recorder), llm, recorder


def _logged_nodes(store, run_id: str) -> set[str]:
    return {e.node for _seq, e in store.events(run_id) if e.type == "debug_log"}


def test_reject_refine_approve_writes_files_and_appends_history(workspace, store):
    (workspace / ".ai_context.json").write_text(json.dumps(
        {"workflow_history": [{"status": "applied", "notes": "earlier"}], "keep": 1}))
    before = tree_hash(workspace)
    # the model approves the buggy file, but its test fails: refined, then approved
    out, llm, _events = _start(workspace, store, [approve(), FIX_EDIT, approve()],
                              files=["calc.py"])
    assert out.status == "awaiting_approval"
    assert out.workflow_type == "fix"  # its test fails now
    assert tree_hash(workspace) == before  # nothing written before approval
    [diff] = out.pending_diffs
    assert diff["file_path"] == "calc.py" and diff["original_content"] == BUGGY
    assert diff["modified_content"] == FIXED and (diff["added"], diff["removed"]) == (1, 1)
    assert "-    return a - b" in diff["diff_hunks"] and "+    return a + b" in diff["diff_hunks"]
    assert out.review_feedback["tests"] == {"ran": True, "passed": 1, "failed": 0,
                                            "failures": [], "before": {"passed": 0,
                                                                       "failed": 1}}
    # the refiner was told the concrete failure (principle 5)
    refiner_prompt = llm.calls[1][-1].content
    assert "failing test test_calc.py::test_add" in refiner_prompt and "assert" in refiner_prompt
    assert [r["iteration"] for r in out.refinements] == [1]
    assert out.refinements[0]["mode"] == "diff" and out.refinements[0]["prompt_tokens"] > 0
    assert out.tokens["per_node"]["refiner"] == (out.refinements[0]["prompt_tokens"]
                                                 + out.refinements[0]["completion_tokens"])
    assert store.get_run(out.run_id).status == "awaiting_approval"
    assert waiting_review(store, out.run_id).pending_diffs == out.pending_diffs

    done = decide_review(out.run_id, approved=True, message="LGTM", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.status == "applied" and done.written == ["calc.py"]
    assert (workspace / "calc.py").read_text() == FIXED
    context = json.loads((workspace / ".ai_context.json").read_text())
    assert context["keep"] == 1
    old, new = context["workflow_history"]
    assert old["notes"] == "earlier"
    assert new["status"] == "applied" and new["artifacts"] == ["calc.py"]
    assert new["workflow_type"] == "fix" and new["notes"] == "LGTM" and new["timestamp"]
    assert store.get_run(out.run_id).status == "succeeded"
    assert waiting_review(store, out.run_id) is None


def test_every_node_emits_debug_logs_with_token_usage(workspace, store):
    out, _llm, events = _start(workspace, store, [approve(), FIX_EDIT, approve()],
                               files=["calc.py"], )
    logs = events.of_type("debug_log")
    nodes = {e.node for e in logs}
    assert {"context_loader", "supervisor", "security_gate", "reviewer", "refiner"} <= nodes
    assert {e.event_type for e in logs} >= {"thinking", "tool_call", "prompt", "result"}
    reviewer_results = [e for e in logs if e.node == "reviewer" and e.event_type == "result"
                        and e.token_usage.total_tokens]
    assert reviewer_results and all(e.token_usage.total_tokens == e.token_usage.prompt_tokens
                                    + e.token_usage.completion_tokens
                                    for e in reviewer_results)
    # the same logs are stored with the run's events
    stored = [e for _seq, e in store.events(out.run_id) if e.type == "debug_log"]
    assert len(stored) == len(logs)


def test_rejections_self_heal_then_block_after_three(workspace, store):
    (workspace / "test_calc.py").unlink()  # no tests: the model's verdict decides
    edit = ("calc.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
    replies = [approve(),
               edit.format(old="    return a - b", new="    return a + b"), approve(),
               edit.format(old="    return a + b", new="    return b + a"), approve()]
    out, llm, _ = _start(workspace, store, replies, files=["calc.py"])
    before = tree_hash(workspace)
    assert out.status == "awaiting_approval" and out.pending_diffs == []  # nothing to change
    out = decide_review(out.run_id, approved=False, message="use addition", llm=llm,
                        store=store)
    assert out.status == "awaiting_approval"
    assert "a person rejected the change: use addition" in llm.calls[1][-1].content
    assert out.pending_diffs[0]["modified_content"] == FIXED
    out = decide_review(out.run_id, approved=False, message="operands the other way",
                        llm=llm, store=store)
    assert out.status == "awaiting_approval"
    # the pending diff is the current change against the file on disk, not a growing list
    [diff] = out.pending_diffs
    assert diff["modified_content"] == "def add(a, b):\n    return b + a\n"
    assert diff["original_content"] == BUGGY
    out = decide_review(out.run_id, approved=False, message="no", llm=llm, store=store)
    assert out.status == "blocked"
    assert BLOCKED in out.error_log and BLOCKED in out.message
    assert tree_hash(workspace) == before
    assert store.get_run(out.run_id).status == "failed"
    assert "self_heal" in _logged_nodes(store, out.run_id)
    assert len(out.refinements) == 2


def test_the_run_fails_after_max_refinement_iterations_with_nothing_written(workspace, store):
    # two rejections keep every round under MAX_ITERATIONS reviews; the refinements add up
    # over the rounds, and the reviewer after the fifth ends the run
    assert MAX_REFINEMENT_ITERATIONS == 5
    (workspace / "test_calc.py").unlink()  # no tests: the model's verdict decides
    before = tree_hash(workspace)
    edit = "calc.py\n<<<<<<< SEARCH\n    return {}\n=======\n    return {}\n>>>>>>> REPLACE\n"
    to_sum, swap, back = (edit.format("a - b", "a + b"), edit.format("a + b", "b + a"),
                          edit.format("b + a", "a + b"))
    replies = [disapprove("wrong sign"), to_sum, approve(),  # round 1: refinement 1
               swap, disapprove("swapped"), back, approve(),  # round 2: refinements 2, 3
               swap, disapprove("swapped"), back, disapprove("still not")]  # 4, 5
    out, llm, _ = _start(workspace, store, replies, files=["calc.py"])
    assert out.status == "awaiting_approval" and len(out.refinements) == 1
    out = decide_review(out.run_id, approved=False, message="swap", llm=llm, store=store)
    assert out.status == "awaiting_approval" and len(out.refinements) == 3
    out = decide_review(out.run_id, approved=False, message="again", llm=llm, store=store)
    assert out.status == "failed"
    assert out.message == "Max refinement iterations (5) reached"
    assert "Max refinement iterations (5) reached" in out.error_log
    assert "Max iterations (3) reached" not in out.error_log  # 2 reviews in that round
    assert [r["iteration"] for r in out.refinements] == [1, 2, 3, 4, 5]
    assert out.review_feedback["iteration"] == 2 and llm.remaining == 0
    assert store.get_run(out.run_id).status == "failed"
    assert waiting_review(store, out.run_id) is None
    assert tree_hash(workspace) == before


def test_high_finding_is_never_approved_whatever_the_model_says(workspace, store):
    (workspace / "test_calc.py").unlink()
    (workspace / "run.py").write_text(
        "import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n")
    fix = ("run.py\n<<<<<<< SEARCH\n    return subprocess.run(cmd, shell=True)\n=======\n"
           "    return subprocess.run(cmd.split(), check=False)\n>>>>>>> REPLACE\n")
    out, llm, _ = _start(workspace, store, [approve(), fix, approve()], files=["run.py"])
    assert out.status == "awaiting_approval"
    first_review = llm.calls[0][-1].content
    assert "HIGH" in first_review  # the finding was shown to the model too
    assert "HIGH security finding in run.py line 5" in llm.calls[1][-1].content
    assert "shell=True" not in out.pending_diffs[0]["modified_content"]
    assert not [f for f in out.findings if f["severity"] == "high"]


def test_model_approval_of_high_finding_ends_failed_after_max_iterations(workspace, store):
    (workspace / "test_calc.py").unlink()
    (workspace / "run.py").write_text(
        "import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n")
    before = tree_hash(workspace)
    # every refinement's rounds (the engine's check holds the HIGH finding) change a comment
    edit = "run.py\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n"
    line = ["def run(cmd):", *(f"def run(cmd):  # {n}" for n in range(1, 7))]
    useless = [edit.format(line[n], line[n + 1]) for n in range(6)]
    out, _llm, _ = _start(workspace, store, [approve(), *useless[:3], approve(), *useless[3:],
                                             approve()], files=["run.py"])
    assert out.status == "failed"
    assert "Max iterations (3) reached" in out.error_log
    assert out.review_feedback["model_approved"] is True
    assert out.review_feedback["approved"] is False
    assert any(f["severity"] == "high" and f["tool"] == "bandit" for f in out.findings)
    assert tree_hash(workspace) == before
    assert store.get_run(out.run_id).status == "failed"


def test_max_iterations_fails_when_the_model_never_approves(workspace, store):
    out, llm, _ = _start(workspace, store, [
        disapprove("add is wrong"), FIX_EDIT,
        disapprove("still wrong"),
        "calc.py\n<<<<<<< SEARCH\n    return a + b\n=======\n    return b + a\n>>>>>>> REPLACE\n",
        disapprove("no")], files=["calc.py"])
    assert out.status == "failed" and out.message == "Max iterations (3) reached"
    assert len(out.refinements) == 2 and out.review_feedback["iteration"] == 3
    assert out.pending_diffs == []
    assert llm.remaining == 0


def test_implementation_writes_new_file_after_approval(workspace, store):
    code = "FILE: greet.py\n```python\ndef greet(name):\n    return 'hi ' + name\n```\n"
    before = tree_hash(workspace)
    (workspace / "calc.py").write_text(FIXED)
    before = tree_hash(workspace)
    out, llm, _ = _start(workspace, store, [code, approve()],
                         request="Add a greet(name) function in greet.py")
    assert out.workflow_type == "implementation" and out.status == "awaiting_approval"
    # the other files by name only: a listing the model could copy as files is not shown
    assert "Other files in the workspace (not shown): calc.py" in llm.calls[0][-1].content
    assert "calc.py: def add" not in llm.calls[0][-1].content
    [diff] = out.pending_diffs
    assert diff["file_path"] == "greet.py" and diff["original_content"] == ""
    assert tree_hash(workspace) == before
    done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store,
                         digest=out.diff_digest)
    assert (workspace / "greet.py").read_text() == "def greet(name):\n    return 'hi ' + name\n"
    assert done.written == ["greet.py"]
    assert _logged_nodes(store, out.run_id) >= {"context_loader", "supervisor", "coder",
                                                 "security_gate", "reviewer",
                                                 "human_approval", "persistence"}


def test_full_refiner_regenerates_the_file(workspace, store):
    whole = "FILE: calc.py\n```python\n" + FIXED + "```\n"
    out, llm, _ = _start(workspace, store, [approve(), whole, approve()], files=["calc.py"],
                         refiner="full")
    assert out.status == "awaiting_approval"
    assert out.refinements[0]["mode"] == "full"
    assert out.pending_diffs[0]["modified_content"] == FIXED
    assert "relative/path.py" not in llm.calls[1][-1].content  # no example path to copy
    assert "SEARCH/REPLACE" not in llm.calls[1][-1].content


def test_a_failed_edit_is_reflected_once_with_the_closest_lines(workspace, store):
    wrong = ("calc.py\n<<<<<<< SEARCH\n    return a-b  # subtract\n=======\n    return a + b\n"
             ">>>>>>> REPLACE\n")
    out, llm, _ = _start(workspace, store, [approve(), wrong, FIX_EDIT, approve()],
                         files=["calc.py"])
    assert out.status == "awaiting_approval"
    retry_prompt = llm.calls[2][-1].content
    assert "an edit of calc.py did not apply" in retry_prompt and "return a - b" in retry_prompt
    assert out.refinements[0]["calls"] == 2 and out.refinements[0]["rounds"] == 2


def test_a_request_on_unchanged_files_goes_to_the_refiner_before_any_model_review(
        workspace, store):
    (workspace / "test_calc.py").unlink()
    out, llm, _ = _start(workspace, store, [NO_REQUEST_TEST, FIX_EDIT, approve()],
                         files=["calc.py"], request="make add return the sum")
    assert out.status == "awaiting_approval" and out.workflow_type == "review"
    assert all("Before anyone changes the code" in c[-1].content for c in llm.calls[:2])
    first = llm.calls[2][-1].content  # the refiner's, before any model review
    assert first.startswith("make add return the sum") and "FILE: calc.py" in first
    assert "not implemented yet" in first
    assert llm.schemas[:3] == [None, None, None] and llm.schemas[3] is not None


def test_after_a_refinement_that_changed_nothing_the_next_one_samples(workspace, store):
    # a reply with no edit is said to the next round (what was wrong with it), for the
    # engine's rounds; the next refinement starts with a sample
    out, llm, _ = _start(workspace, store, [approve(), "I would change it.", "Still no.",
                                            "Nope.", approve(), FIX_EDIT, approve()],
                         files=["calc.py"])
    assert out.status == "awaiting_approval"
    assert [r["files_changed"] for r in out.refinements] == [0, 1]
    assert "attempt 1 changed no file" in llm.calls[2][-1].content
    assert any(line.startswith("refinement 1 changed nothing (attempt 2 changed no file")
               for line in out.error_log)
    assert llm.temperatures == [0.0, 0.0, 0.0, 0.0, 0.0, 0.7, 0.0]


def test_an_unreadable_verdict_is_not_an_approval(workspace, store):
    (workspace / "test_calc.py").unlink()
    # not JSON, and not JSON again when asked plainly: not approved, and said so
    out, llm, _ = _start(workspace, store, ["sure, looks fine!", "all good", FIX_EDIT,
                                            approve()], files=["calc.py"])
    assert out.status == "awaiting_approval"
    assert "only this JSON object" in llm.calls[1][-1].content
    assert "the review model gave no readable verdict twice" in llm.calls[2][-1].content
    assert [r["iteration"] for r in out.refinements] == [1]


def test_a_verdict_cut_off_mid_json_is_read_from_the_plain_retry(workspace, store):
    # the JSON call fails; the plain retry's object is cut off, but says what it found
    (workspace / "test_calc.py").unlink()
    cut = '{"approved": false, "issues": ["calc.py line 2: add subtracts instead of adding"'
    out, llm, _ = _start(workspace, store, ["sure, looks fine!", cut, FIX_EDIT, approve()],
                         files=["calc.py"])
    assert out.status == "awaiting_approval"
    assert "calc.py line 2: add subtracts instead of adding" in llm.calls[2][-1].content
    assert out.pending_diffs[0]["modified_content"] == FIXED


def _bare_no(*suggestions: str) -> dict:
    return {"json": {"approved": False, "issues": [], "suggestions": list(suggestions)}}


def test_a_bare_no_on_a_change_that_passes_every_check_goes_to_the_person(workspace, store):
    # a "no" with no issue and no suggestion gives the refiner nothing to act on: once every
    # check passes on a change, the person decides
    out, llm, _ = _start(workspace, store, [approve(), FIX_EDIT, _bare_no()],
                         files=["calc.py"])
    assert out.status == "awaiting_approval" and llm.remaining == 0
    assert out.review_feedback["approved"] is True
    assert out.review_feedback["model_approved"] is False  # what the model said is kept
    assert out.pending_diffs[0]["modified_content"] == FIXED


def test_a_no_whose_reason_is_in_the_suggestions_goes_to_the_refiner(workspace, store):
    # the 1.5B on off_by_one: issues [], the reason in suggestions; it is the refiner's issue
    reason = "add does not return the sum for negative numbers"
    doc = ("calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n=======\ndef add(a, b):\n"
           "    \"\"\"The sum.\"\"\"\n>>>>>>> REPLACE\n")
    out, llm, _ = _start(workspace, store, [approve(), FIX_EDIT, _bare_no(reason), doc,
                                            approve()],
                         files=["calc.py"])
    assert reason in llm.calls[3][-1].content
    assert out.status == "awaiting_approval" and llm.remaining == 0
    assert len(out.refinements) == 2


def test_a_bare_no_with_nothing_changed_still_asks_for_a_fix(workspace, store):
    # nothing to approve: the "no" goes back as an instruction to look again
    (workspace / "test_calc.py").unlink()  # no failing test: only the model's "no" is left
    out, llm, _ = _start(workspace, store, [_bare_no(), FIX_EDIT, approve()],
                         files=["calc.py"])
    assert out.status == "awaiting_approval"
    assert "named no issue" in llm.calls[1][-1].content


def test_a_bare_no_never_passes_a_failing_test(workspace, store):
    # the rules block first: a change whose test still fails is not approved by a bare "no"
    still_wrong = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a * b\n"
                   ">>>>>>> REPLACE\n")
    fix = still_wrong.replace("a - b", "a * b", 1).replace("return a * b\n>", "return a + b\n>")
    out, llm, _ = _start(workspace, store, [approve(), still_wrong, "No change.", "No change.",
                                            _bare_no(), fix, approve()],
                         files=["calc.py"])
    assert out.status == "awaiting_approval" and llm.remaining == 0
    assert out.pending_diffs[0]["modified_content"] == FIXED
    assert [r["files_changed"] for r in out.refinements] == [1, 1]
    assert "failing test test_calc.py::test_add" in llm.calls[5][-1].content
