"""The change request as a test (review/request_test.py): written before the first
refinement, kept only where it fails on the code under review, run with the workspace's
tests, shown to the refiner, and never part of what a person approves. On the scripted
model, with the real sandbox and pytest."""

from __future__ import annotations

import subprocess
import sys

from review_helpers import approve, tree_hash

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.request_test import judge
from codeloop.review.service import ReviewRequest, decide_review, start_review

CART = "def add_item(name, cart=[]):\n    cart.append(name)\n    return cart\n"
CART_FIXED = ("def add_item(name, cart=None):\n    if cart is None:\n        cart = []\n"
              "    cart.append(name)\n    return cart\n")
CART_TEST = ("from cart import add_item\n\n\ndef test_append_to_a_given_cart():\n"
             "    assert add_item('a', ['x']) == ['x', 'a']\n")
REQUEST = "Two calls to add_item without a cart share their items. Fix cart.py."
ASKED = "Before anyone changes the code"
REQUEST_TESTS = (
    "from cart import add_item\n\n\n"
    "def test_fresh_cart_each_call():\n    add_item('a')\n    assert add_item('b') == ['b']\n\n\n"
    "def test_typo():\n    assert add_itme('a') == ['a']\n\n\n"
    "def test_given_cart():\n    assert add_item('a', []) == ['a']\n")
FIX = f"FILE: cart.py\n```python\n{CART_FIXED}```"
BOGUS_NO = {"json": {"approved": False, "issues": [], "suggestions": [
    "add_item should be defined at the top of the file"]}}


def _workspace(tmp_path, extra_test: str = ""):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cart.py").write_text(CART)
    (ws / "test_cart.py").write_text(CART_TEST + extra_test)
    return ws


def _reply(text: str) -> dict:
    return {"match": ASKED, "reply": f"FILE: test_codeloop_request.py\n```python\n{text}```"}


def test_a_request_test_that_fails_before_and_passes_after_outweighs_a_bare_objection(
        tmp_path, store):
    ws = _workspace(tmp_path)
    before = tree_hash(ws)
    llm = ScriptedLLM([_reply(REQUEST_TESTS), FIX, BOGUS_NO])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=REQUEST),
                       llm, store, None)
    assert out.status == "awaiting_approval", out.message
    assert tree_hash(ws) == before  # nothing written before approval, the test neither
    feedback = out.review_feedback
    shown = dict(feedback["request_test"])
    assert "def test_fresh_cart_each_call" in shown.pop("content")
    assert "test_typo" not in feedback["request_test"]["content"]  # dropped: wrong itself
    assert shown == {"path": "test_codeloop_request.py", "tests": ["test_fresh_cart_each_call"],
                     "passes": True, "set_aside": None}
    assert feedback["model_approved"] is False and feedback["approved"] is True
    assert "add_item should be defined at the top of the file" in feedback["suggestions"]
    # the refiner saw the request test and its failure on the code as it was
    refiner_prompt = llm.calls[1][-1].content
    assert "FILE: test_codeloop_request.py (a test" in refiner_prompt
    assert "test_fresh_cart_each_call" in refiner_prompt and "test_typo" not in refiner_prompt
    assert "assert ['a', 'b'] == ['b']" in refiner_prompt
    assert "FILE: cart.py (read only" not in refiner_prompt
    assert [d["file_path"] for d in out.pending_diffs] == ["cart.py"]

    done = decide_review(out.run_id, approved=True, message="ok", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.written == ["cart.py"] and (ws / "cart.py").read_text() == CART_FIXED
    assert not (ws / "test_codeloop_request.py").exists()


def test_without_a_reproducing_test_an_objection_still_goes_to_the_refiner(tmp_path, store):
    ws = _workspace(tmp_path)
    passing = "from cart import add_item\n\n\ndef test_given():\n    assert add_item('a', []) == ['a']\n"
    moved = f"FILE: cart.py\n```python\n\"\"\"Carts.\"\"\"\n\n\n{CART_FIXED}```"
    # the objection's own test (objection_test.py) does not run: nothing was checked
    unsettled = {"match": "A reviewer objects", "reply": (
        "FILE: test_codeloop_objection.py\n```python\nimport not_a_module\n"
        "from cart import add_item\n\n\ndef test_top():\n    assert add_item\n```")}
    llm = ScriptedLLM([unsettled, _reply(passing), FIX, BOGUS_NO, moved, "DONE", approve()])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=REQUEST),
                       llm, store, None)
    assert out.review_feedback["request_test"] is None
    second_round = llm.calls[1][-1].content  # the writer's second round: why the first failed
    assert ASKED in second_round and "pass on the code as it is" in second_round
    refinement_2 = [c[-1].content for c in llm.calls if "defined at the top" in c[-1].content]
    assert refinement_2, "the objection went to the refiner"
    assert out.status == "awaiting_approval" and out.review_feedback["model_approved"] is True


def test_the_request_test_runs_in_the_sandbox_and_touches_nothing(tmp_path, store):
    # attack: the model's request test writes into the workspace and beside it when it runs
    ws = _workspace(tmp_path)
    outside = tmp_path / "pwned"
    hostile = REQUEST_TESTS + (
        "\n\ndef test_zz_escape():\n"
        "    open('cart.py', 'w').write('hacked = 1\\n')\n"
        f"    open({str(outside)!r}, 'w').write('x')\n"
        "    assert False\n")
    before = tree_hash(ws)
    llm = ScriptedLLM([_reply(hostile), FIX, approve()])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=REQUEST),
                       llm, store, None)
    assert tree_hash(ws) == before and not outside.exists()
    assert out.status in ("awaiting_approval", "failed")
    assert all(d["file_path"] == "cart.py" for d in out.pending_diffs)


def test_judge_reads_what_each_failure_says_of_the_test(tmp_path):
    (tmp_path / "calc.py").write_text(
        "def f(x):\n    if x > 5:\n        raise KeyError(x)\n    return x\n")
    (tmp_path / "test_r.py").write_text(
        "import pytest\nfrom calc import f\n\n\n"
        "def test_assert():\n    assert f(1) == 2\n\n\n"
        "def test_raised_in_code():\n    assert f(9) == 9\n\n\n"
        "def test_did_not_raise():\n    with pytest.raises(ValueError):\n        f(1)\n\n\n"
        "def test_name():\n    assert g(1)\n\n\n"
        "def test_wrong_call():\n    f(1, 2)\n\n\n"
        "@pytest.mark.parametrize('x', [1, 2])\ndef test_param(x):\n    assert f(x) == 0\n\n\n"
        "def test_ok():\n    assert f(1) == 1\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p",
                          "no:cacheprovider", "-o", "addopts=", "test_r.py"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    verdicts = judge(run.stdout, "test_r.py")
    assert verdicts.reproduced == ["test_assert", "test_did_not_raise", "test_param"]
    # an exception from the code may be the test's own setup (path_traversal on the 1.5B:
    # FileNotFoundError for a file the test never made): not a reproduction
    assert set(verdicts.mistaken) == {"test_raised_in_code", "test_name", "test_wrong_call"}
    assert verdicts.mistaken["test_name"].startswith("NameError")
    assert verdicts.passed == 1 and verdicts.broken == ""
    (tmp_path / "test_r.py").write_text("from calc import nothing_here\n\n\ndef test_x():\n"
                                        "    assert True\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p",
                          "no:cacheprovider", "-o", "addopts=", "test_r.py"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    broken = judge(run.stdout, "test_r.py")
    assert broken.broken.startswith("ImportError") and not broken.reproduced


def test_the_review_view_says_what_the_request_test_showed():
    from rich.console import Console

    from codeloop.commands.review_view import render_feedback

    console = Console(record=True, width=200)
    render_feedback(console, {
        "approved": True, "model_approved": False, "issues": [],
        "suggestions": ["add_item should be defined at the top of the file"],
        "tests": {"ran": True, "passed": 2, "failed": 0, "failures": []},
        "request_test": {"path": "test_codeloop_request.py",
                         "tests": ["test_fresh_cart_each_call"], "passes": True}})
    text = console.export_text()
    assert "the model did not: its remarks are below" in text
    assert ("request test test_codeloop_request.py (test_fresh_cart_each_call): failed on the "
            "code before the change, pass now") in text
    assert "suggestion: add_item should be defined at the top of the file" in text
    assert "request_test:" not in text  # not shown again as a raw field
