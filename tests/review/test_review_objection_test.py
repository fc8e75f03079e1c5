"""A reviewer's objection to a change that passes every check is run as a test on the
changed code (review/objection_test.py). Measured on the 1.5B: mutable_default's right fix
refused twice with "add_item does not return the updated cart when called without a cart",
which it does. A test of the objection that passes sends the change to the person with the
remarks; one that fails sends its failure to the refiner; a wrong test changes nothing.
On the scripted model, with the real sandbox and pytest."""

from __future__ import annotations

from review_helpers import approve
from test_review_objections import CART, CART_TEST, FIX, FIXED, MOVED, _no
from test_review_objections import _review as review_cart

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, start_review

REQUEST = ("Two calls to add_item without a cart return each other's items. Fix cart.py; "
           "passing a cart must still append to it and return it.")
OBJECTION = "add_item does not return the updated cart when called without a cart argument"
OBJECTED = "A reviewer objects"


def _objection_test(body: str) -> dict:
    return {"match": OBJECTED, "reply": (
        "FILE: test_codeloop_objection.py\n```python\nfrom cart import add_item\n\n\n"
        f"def test_objection():\n{body}```")}


# what the objection claims, as a test: it passes on the fix, so the claim is wrong
UNFOUNDED = _objection_test("    assert add_item('pen') == [('pen', 1)]\n")
# a test that fails on the fix the way a missing behaviour fails: the objection is shown
SHOWN = _objection_test("    assert add_item('pen', 2) == [('pen', 2), ('pen', 2)]\n")
# a test that is wrong itself (a name it never defined): shows nothing
WRONG = _objection_test("    assert add_item('pen') == expected_cart\n")
# a file that does not run (its import fails when collected): nothing was checked
BROKEN = {"match": OBJECTED, "reply": (
    "FILE: test_codeloop_objection.py\n```python\nimport not_a_module\n"
    "from cart import add_item\n\n\ndef test_objection():\n    assert add_item('pen')\n```")}


# a test of the objection that passes beside one wrong itself (an exception the request
# never asks for): the 1.5B's answer on mutable_default; the wrong one says nothing
MIXED = _objection_test("    assert add_item('pen') == [('pen', 1)]\n\n\n"
                        "def test_negative():\n    import pytest\n\n"
                        "    with pytest.raises(ValueError):\n        add_item('pen', -1)\n")


def _review(tmp_path, store, *replies):
    return review_cart(tmp_path, store, *replies, request=REQUEST)


def _refined_on(llm: ScriptedLLM, text: str) -> list[str]:
    return [call[-1].content for call in llm.calls
            if text in call[-1].content and OBJECTED not in call[-1].content]


def test_an_objection_its_own_test_does_not_show_goes_to_the_person(tmp_path, store):
    ws, llm, out = _review(tmp_path, store, UNFOUNDED, _no(OBJECTION))
    assert out.status == "awaiting_approval", out.message
    feedback = out.review_feedback
    assert feedback["model_approved"] is False and feedback["approved"] is True
    assert feedback["suggestions"][0] == OBJECTION
    assert feedback["suggestions"][1] == (
        "the reviewer's objections were run as tests on the change and none failed as a "
        "missing behaviour does (passed: test_objection)")
    assert any(OBJECTED in call[-1].content and OBJECTION in call[-1].content
               for call in llm.calls), "the objection test was asked for"
    assert not _refined_on(llm, OBJECTION), "no refiner round on the objection"
    assert (ws / "cart.py").read_text() == CART  # nothing written before approval
    assert not (ws / "test_codeloop_objection.py").exists()
    done = decide_review(out.run_id, approved=True, message="ok", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.written == ["cart.py"] and (ws / "cart.py").read_text() == FIXED


def test_an_objection_its_test_shows_reaches_the_refiner_with_the_failure(tmp_path, store):
    _, llm, out = _review(tmp_path, store, SHOWN, _no(OBJECTION), MOVED, "DONE", approve())
    refined = _refined_on(llm, OBJECTION)
    assert refined, "the objection reached the refiner"
    assert "as a test fails on the change: test_objection" in refined[0]
    assert "[('pen', 2), ('pen', 2)]" in refined[0]  # the assertion that shows it
    assert out.status == "awaiting_approval" and out.review_feedback["iteration"] == 3


def test_an_objection_test_that_does_not_run_leaves_the_objection_standing(tmp_path, store):
    _, llm, out = _review(tmp_path, store, BROKEN, _no(OBJECTION), MOVED, "DONE", approve())
    refined = _refined_on(llm, OBJECTION)
    assert refined and "as a test fails" not in refined[0]
    assert out.status == "awaiting_approval" and out.review_feedback["iteration"] == 3


def test_an_objection_only_a_wrong_test_was_written_for_goes_to_the_person(tmp_path, store):
    _, llm, out = _review(tmp_path, store, WRONG, _no(OBJECTION))
    assert out.status == "awaiting_approval", out.message
    remark = out.review_feedback["suggestions"][-1]
    assert "none failed as a missing behaviour does (test_objection wrong itself (" in remark
    assert "expected_cart" in remark
    assert not _refined_on(llm, OBJECTION)


def test_no_objection_test_without_a_change_request(tmp_path, store):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cart.py").write_text(CART)
    (ws / "test_cart.py").write_text(CART_TEST)
    llm = ScriptedLLM([UNFOUNDED, _no(OBJECTION), FIX, "DONE", approve()])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"]), llm, store, None)
    assert not any(OBJECTED in call[-1].content for call in llm.calls)
    assert out.status == "awaiting_approval" and out.review_feedback["model_approved"] is True


def test_a_wrong_test_beside_a_passing_one_does_not_hold_the_change(tmp_path, store):
    _, llm, out = _review(tmp_path, store, MIXED, _no(OBJECTION))
    assert out.status == "awaiting_approval", out.message
    remark = out.review_feedback["suggestions"][-1]
    assert "(passed: test_objection; test_negative wrong itself (it expects ValueError" in remark
    assert not _refined_on(llm, OBJECTION)
