"""A refinement that leaves fewer tests passing than it started with is undone, and the next
one answers the first prompt anew (sampled) instead of repairing the breakage: measured on the
1.5B, md5_password's and path_traversal's first fixes broke the workspace test that passed,
and every later refinement worked on that breakage, never on the request. On the scripted
model, with the real sandbox and pytest."""

from __future__ import annotations

from review_helpers import approve

from codeloop.jobs.edit_engine.rounds import RETRY_TEMPERATURE
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review

CART = "def add_item(name, cart=[]):\n    cart.append(name)\n    return cart\n"
BROKEN = "def add_item(name, cart=None):\n    raise TypeError('cart must be given')\n"
FIXED = ("def add_item(name, cart=None):\n    if cart is None:\n        cart = []\n"
         "    cart.append(name)\n    return cart\n")
CART_TEST = ("from cart import add_item\n\n\ndef test_append_to_a_given_cart():\n"
             "    assert add_item('a', ['x']) == ['x', 'a']\n")
REQUEST_TEST = ("from cart import add_item\n\n\ndef test_fresh_cart_each_call():\n"
                "    add_item('a')\n    assert add_item('b') == ['b']\n")
REQUEST = "Two calls to add_item without a cart share their items. Fix cart.py."


def test_a_refinement_that_breaks_a_passing_test_is_undone_and_the_next_samples_anew(
        tmp_path, store):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cart.py").write_text(CART)
    (ws / "test_cart.py").write_text(CART_TEST)
    llm = ScriptedLLM([
        {"match": "Before anyone changes the code",
         "reply": f"FILE: test_codeloop_request.py\n```python\n{REQUEST_TEST}```"},
        {"match": "Reply with every file", "reply": f"FILE: cart.py\n```python\n{BROKEN}```",
         "times": 3},
        {"match": "Reply with every file", "reply": f"FILE: cart.py\n```python\n{FIXED}```"},
        approve(), approve(), approve()])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=REQUEST),
                       llm, store, None)

    assert out.status == "awaiting_approval", out.message
    assert "cart = []" in str(out.pending_diffs) and "raise TypeError" not in str(
        out.pending_diffs)
    first, second = out.refinements[0], out.refinements[1]
    assert first["files_changed"] == 0 and second["files_changed"] == 1
    assert first["checks_passed"] is False  # undone: the rounds did nothing, whatever passes
    refiner_prompts = [(n, call[-1].content) for n, call in enumerate(llm.calls)
                       if call[-1].content.startswith(REQUEST)]
    assert len(refiner_prompts) == 4  # three rounds of the first refinement, one of the next
    # the next refinement's first prompt shows the code as it was, not the breakage, sampled
    n, anew = refiner_prompts[-1]
    assert "raise TypeError" not in anew and "cart.append(name)" in anew
    assert llm.temperatures[n] == RETRY_TEMPERATURE
    assert any("fewer tests passing than before them" in line
               for line in out.error_log), out.error_log
