"""A reviewer's "no" only about code the change did not touch and the request does not name
goes to the person beside the diff (review/objections.py): measured on the 1.5B,
mutable_default's right fix was refused over `cart_size` until the rounds ran out. An
objection about what the change wrote, or naming no definition, still goes to the refiner.
On the scripted model, with the real sandbox and pytest."""

from __future__ import annotations

from review_helpers import approve

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.objections import beside_the_change
from codeloop.review.service import ReviewRequest, decide_review, start_review

CART = ("def add_item(name, quantity=1, cart=[]):\n    cart.append((name, quantity))\n"
        "    return cart\n\n\ndef cart_size(cart):\n"
        "    return sum(quantity for _, quantity in cart)\n")
FIXED = CART.replace("cart=[]):\n", "cart=None):\n    if cart is None:\n        cart = []\n")
CART_TEST = ("from cart import add_item, cart_size\n\n\ndef test_given_cart():\n"
             "    cart = [('pen', 2)]\n    assert add_item('ink', 3, cart) == [('pen', 2), ('ink', 3)]\n"
             "    assert cart_size(cart) == 5\n")
REQUEST = "Two calls to add_item without a cart return each other's items. Fix cart.py."
ASKED = "Before anyone changes the code"
# a request test that passes on the code as it is: not kept, nothing verifies the request
PASSING = ("FILE: test_codeloop_request.py\n```python\nfrom cart import add_item\n\n\n"
           "def test_given():\n    assert add_item('a', 1, []) == [('a', 1)]\n```")
FIX = f"FILE: cart.py\n```python\n{FIXED}```"
# the second refinement: the same fix under a module docstring (a reply of the code as it
# stands would be an echo)
MOVED = f"FILE: cart.py\n```python\n\"\"\"Carts.\"\"\"\n\n\n{FIXED}```"
# the objections as a test (review/objection_test.py) that fails on the fix: they stand
SHOWN = {"match": "A reviewer objects", "reply": (
    "FILE: test_codeloop_objection.py\n```python\nimport inspect\n\nfrom cart import add_item"
    "\n\n\ndef test_default():\n    assert inspect.signature(add_item).parameters['cart']"
    ".default is not None\n```")}
BESIDE = "The function `cart_size` does not return the number of items but the sum of quantities."


def _no(*suggestions: str) -> dict:
    return {"json": {"approved": False, "issues": [], "suggestions": list(suggestions)}}


def _review(tmp_path, store, *replies, request=REQUEST):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cart.py").write_text(CART)
    (ws / "test_cart.py").write_text(CART_TEST)
    llm = ScriptedLLM([{"match": ASKED, "reply": PASSING}, FIX, *replies])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=request),
                       llm, store, None)
    return ws, llm, out


def test_an_objection_only_about_untouched_code_goes_to_the_person(tmp_path, store):
    ws, llm, out = _review(tmp_path, store, _no(BESIDE))
    assert out.status == "awaiting_approval", out.message
    feedback = out.review_feedback
    assert feedback["model_approved"] is False and feedback["approved"] is True
    assert feedback["request_test"] is None and feedback["suggestions"] == [BESIDE]
    assert [d["file_path"] for d in out.pending_diffs] == ["cart.py"]
    assert not any(BESIDE in call[-1].content for call in llm.calls)  # no refiner round on it
    assert (ws / "cart.py").read_text() == CART  # nothing written before approval
    done = decide_review(out.run_id, approved=True, message="ok", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.written == ["cart.py"] and (ws / "cart.py").read_text() == FIXED


def test_an_objection_about_what_the_change_wrote_goes_to_the_refiner(tmp_path, store):
    about_the_fix = "add_item should not use None as the default"
    _, llm, out = _review(tmp_path, store, SHOWN, _no(about_the_fix), MOVED, "DONE", approve())
    assert any(about_the_fix in call[-1].content for call in llm.calls), \
        "the objection reached the refiner"
    assert out.status == "awaiting_approval" and out.review_feedback["model_approved"] is True


def test_one_objection_naming_no_definition_keeps_the_change_in_the_loop(tmp_path, store):
    vague = "negative quantities should be refused"
    _, llm, out = _review(tmp_path, store, SHOWN, _no(BESIDE, vague), MOVED, "DONE", approve())
    refined = [call[-1].content for call in llm.calls if vague in call[-1].content]
    assert refined and BESIDE in refined[0]
    assert out.status == "awaiting_approval" and out.review_feedback["iteration"] == 3


def test_beside_the_change_reads_definitions_not_words():
    before = {"cart.py": CART}
    after = {"cart.py": FIXED}
    assert beside_the_change([BESIDE], REQUEST, before, after)
    # the request names cart_size: an objection about it is about the request
    assert not beside_the_change([BESIDE], "Fix add_item and cart_size.", before, after)
    # a word that is no definition of the code does not count as naming one
    assert not beside_the_change(["the cart should be a dict"], REQUEST, before, after)
    assert not beside_the_change([], REQUEST, before, after)
    # a method changed inside a class: the class is touched too
    cls = "class Cart:\n    def add(self, x):\n        return x\n\n    def size(self):\n        return 0\n"
    changed = cls.replace("return x", "return [x]")
    assert not beside_the_change(["Cart is too big"], "fix add", {"c.py": cls}, {"c.py": changed})
    assert beside_the_change(["size() always says 0"], "fix add", {"c.py": cls},
                             {"c.py": changed})
    # a new file's definitions are all written by the change
    assert not beside_the_change(["helper is slow"], REQUEST, {},
                                 {"new.py": "def helper():\n    pass\n"})
