"""A request test that did not see the change stops blocking (review/request_test_unseen.py):
measured on the 1.5B, `assert cart_size([]) == 2` blocked the right fix of `add_item` until
"Max iterations" (such a test is refused when written now: request_test_focus.py; one that
reaches add_item and still expects what no fix gives is the case here). On the scripted
model, with the real sandbox and pytest."""

from __future__ import annotations

from review_helpers import approve

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review

SIZE = "\n\ndef cart_size(cart):\n    return len(cart)\n"
CART = "def add_item(name, cart=[]):\n    cart.append(name)\n    return cart\n" + SIZE
CART_FIXED = ("def add_item(name, cart=None):\n    if cart is None:\n        cart = []\n"
              "    cart.append(name)\n    return cart\n" + SIZE)
CART_TEST = ("from cart import add_item\n\n\ndef test_append_to_a_given_cart():\n"
             "    assert add_item('a', ['x']) == ['x', 'a']\n")
REQUEST = "Two calls to add_item without a cart share their items. Fix cart.py."
ASKED = "Before anyone changes the code"
RIGHT = "def test_fresh_cart_each_call():\n    add_item('a')\n    assert add_item('b') == ['b']\n"
# no fix of add_item meets it (a cart of two is size 2); it reaches add_item through `cart`,
# so it is no blind assertion (request_test_focus.py) and is kept as reproducing
BLIND = ("def test_size_of_a_new_cart():\n    cart = add_item('x', ['y'])\n"
         "    assert cart_size(cart) == 3\n")
RAISES = ("def test_refuses_an_empty_name():\n    with pytest.raises(ValueError):\n"
          "        add_item('')\n")
HEAD = "import pytest\nfrom cart import add_item, cart_size\n\n\n"
NO = {"json": {"approved": False, "issues": [], "suggestions": ["add a docstring"]}}


def _review(tmp_path, store, tests: str, fix: str, *verdicts, request: str = REQUEST):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cart.py").write_text(CART)
    (ws / "test_cart.py").write_text(CART_TEST)
    llm = ScriptedLLM([
        {"match": ASKED, "reply": f"FILE: test_codeloop_request.py\n```python\n{tests}```"},
        {"match": "Reply with every file", "reply": f"FILE: cart.py\n```python\n{fix}```"},
        *verdicts])
    return start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=request),
                        llm, store, None)


def test_a_test_failing_with_the_same_values_after_a_real_change_is_set_aside(tmp_path, store):
    out = _review(tmp_path, store, HEAD + RIGHT + "\n\n" + BLIND, CART_FIXED, NO, NO, NO)
    assert out.status == "awaiting_approval", out.message
    shown = out.review_feedback["request_test"]
    assert shown["tests"] == ["test_fresh_cart_each_call"] and shown["passes"] is True
    assert "test_size_of_a_new_cart fail with the values they failed with" in shown["set_aside"]
    assert "assert 2 == 3" in shown["set_aside"]
    assert "test_size_of_a_new_cart" not in shown["content"]
    assert out.review_feedback["tests"]["failed"] == 0


def test_the_same_blind_test_blocks_while_the_code_is_unchanged_but_for_a_docstring(
        tmp_path, store):
    documented = '"""Carts."""\n\n\n' + CART
    out = _review(tmp_path, store, HEAD + BLIND, documented, NO, NO, NO)
    assert out.status == "failed"
    shown = out.review_feedback["request_test"]
    assert shown["set_aside"] is None and shown["tests"] == ["test_size_of_a_new_cart"]
    assert any("test_size_of_a_new_cart" in issue for issue in out.review_feedback["issues"])


def test_a_did_not_raise_that_reads_the_same_still_blocks(tmp_path, store):
    # "DID NOT RAISE" reads the same for a wrong fix as for a wrong test: it stays in force
    # (the request asks for the refusal: a raise it never asks for is refused when written,
    # test_review_request_test_focus.py)
    out = _review(tmp_path, store, HEAD + RAISES, CART_FIXED, approve(), approve(), approve(),
                  request=REQUEST + " An empty name is refused with ValueError.")
    assert out.status == "failed"
    shown = out.review_feedback["request_test"]
    assert shown["set_aside"] is None and shown["passes"] is False
    assert any("DID NOT" in issue for issue in out.review_feedback["issues"]), \
        out.review_feedback["issues"]


def test_a_failing_line_that_calls_a_rewritten_function_still_blocks(tmp_path, store):
    # the same values after a change, but the change rewrote what the failing line calls:
    # the test may see the change yet (here a cosmetic rewrite of cart_size), so it stays
    reworded = CART_FIXED.replace("return len(cart)", "return len(list(cart))")
    out = _review(tmp_path, store, HEAD + BLIND, reworded, NO, NO, NO)
    assert out.status == "failed"
    shown = out.review_feedback["request_test"]
    assert shown["set_aside"] is None and shown["tests"] == ["test_size_of_a_new_cart"]
