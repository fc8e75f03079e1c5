"""A request test whose failing assertion looks at nothing the request is about is refused
when written (review/request_test_focus.py): the 1.5B's `assert cart_size([]) == 2` for a
request about add_item. The rule on its own, then a review on the scripted model with the
real sandbox and pytest."""

from __future__ import annotations

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.request_test_focus import blind_assertion, invented_raise, request_names
from codeloop.review.service import ReviewRequest, start_review

CART = ("def add_item(name, cart=[]):\n    cart.append(name)\n    return cart\n\n\n"
        "def cart_size(cart):\n    return len(cart)\n\n\nclass Basket:\n"
        "    def put(self, name):\n        return name\n")
REQUEST = "Two calls to add_item without a cart share their items. Fix cart.py."
TESTS = '''
from cart import add_item, cart_size


def test_blind():
    add_item("pen")
    assert cart_size([]) == 2


def test_direct():
    assert add_item("b") == ["b"]


def test_through_a_variable():
    first = add_item("a")
    again = list(first)
    assert again == ["a"]


def test_passed_in():
    cart = []
    add_item("a", cart)
    assert cart == ["a"]


def test_fixture(basket):
    assert basket.put("x") == "x"
'''


def test_the_request_names_the_code_it_is_about():
    assert request_names(REQUEST, {"cart.py": CART}) == {"add_item"}
    assert request_names("Basket.put drops names", {"cart.py": CART}) == {"Basket", "put"}
    assert request_names("Make it faster", {"cart.py": CART}) == set()


def test_an_assertion_is_blind_only_when_it_reaches_none_of_the_names():
    names = {"add_item"}
    assert blind_assertion(TESTS, "test_blind", "assert cart_size([]) == 2", names)
    assert not blind_assertion(TESTS, "test_direct", 'assert add_item("b") == ["b"]', names)
    assert not blind_assertion(TESTS, "test_through_a_variable", 'assert again == ["a"]', names)
    assert not blind_assertion(TESTS, "test_passed_in", 'assert cart == ["a"]', names)
    # a fixture's value comes from elsewhere; a raises block or an unparsable line: left be
    assert not blind_assertion(TESTS, "test_fixture", 'assert basket.put("x") == "x"', names)
    assert not blind_assertion(TESTS, "test_blind", "with pytest.raises(ValueError):", names)
    assert not blind_assertion(TESTS, "test_blind", "assert cart_size(", names)
    assert not blind_assertion(TESTS, "test_blind", "assert cart_size([]) == 2", set())


def test_a_raise_the_request_never_asks_for_is_invented():
    failed = "E       Failed: DID NOT RAISE <class 'ValueError'>"
    assert invented_raise(failed, REQUEST) == "ValueError"
    assert invented_raise("E   Failed: DID NOT RAISE ValueError", REQUEST) == "ValueError"
    assert invented_raise(failed, "Raise ValueError for anything else") is None
    assert invented_raise(failed, "An empty name must be refused") is None
    assert invented_raise(failed, "Make it return ValueError-free output") is None  # named
    assert invented_raise("E   assert 0 == 2", REQUEST) is None


def test_a_blind_request_test_is_refused_and_the_model_asked_again(tmp_path, store):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cart.py").write_text(CART)
    (ws / "test_cart.py").write_text("from cart import add_item\n\n\ndef test_given_cart():\n"
                                     "    assert add_item('a', ['x']) == ['x', 'a']\n")
    blind = ("import pytest\nfrom cart import add_item, cart_size\n\n\ndef test_new_cart():\n"
             "    assert add_item('pen') == ['pen']\n    assert cart_size([]) == 2\n\n\n"
             "def test_negative_quantity():\n    with pytest.raises(ValueError):\n"
             "        add_item('')\n")
    right = ("from cart import add_item\n\n\ndef test_fresh_cart_each_call():\n"
             "    add_item('a')\n    assert add_item('b') == ['b']\n")
    llm = ScriptedLLM([
        {"match": "looks at none of add_item",
         "reply": f"FILE: test_codeloop_request.py\n```python\n{right}```"},
        {"match": "Before anyone changes the code",
         "reply": f"FILE: test_codeloop_request.py\n```python\n{blind}```"},
        {"match": "Reply with every file", "reply": "I cannot fix it."},
        {"json": {"approved": False, "issues": ["add_item shares its default"],
                  "suggestions": []}}, *["no"] * 6])
    out = start_review(ReviewRequest(workspace=ws, files=["cart.py"], request=REQUEST),
                       llm, store, None)
    shown = out.review_feedback["request_test"]
    assert shown is not None and shown["tests"] == ["test_fresh_cart_each_call"], shown
    assert "cart_size([])" not in shown["content"] and "add_item('')" not in shown["content"]
    asked_again = [m[-1].content for m in llm.calls if "looks at none of add_item" in
                   m[-1].content]
    assert asked_again and "assert cart_size([]) == 2" in asked_again[0]
    assert "test_negative_quantity is wrong itself: it expects ValueError to be raised, which " \
           "the request never asks for" in asked_again[0]


PAGING = ("def get_page(items, number, size):\n    start = number * size\n"
          "    return items[start:start + size]\n")
PAGING_FIXED = ("def get_page(items, number, size):\n"
                "    return items[(number - 1) * size:number * size]\n")
PAGES = ("import pytest\nfrom paging import get_page\n\n\ndef test_get_page():\n"
         "    items = [1, 2, 3, 4]\n    assert get_page(items, 1, 2) == [1, 2]\n"
         "    with pytest.raises(IndexError):\n        get_page(items, 3, 2)\n")


def _paging_review(tmp_path, store, request: str, approved: bool = True):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "paging.py").write_text(PAGING)
    (ws / "test_paging.py").write_text("from paging import get_page\n\n\ndef test_past_the_end():\n"
                                       "    assert get_page([1, 2, 3], 5, 1) == []\n")
    yes = {"json": {"approved": approved, "issues": [], "suggestions": [] if approved else
                    ["get_page does not return the first items"]}}
    llm = ScriptedLLM([
        {"match": "Before anyone changes the code",
         "reply": f"FILE: test_codeloop_request.py\n```python\n{PAGES}```"},
        {"match": "Reply with every file",
         "reply": f"FILE: paging.py\n```python\n{PAGING_FIXED}```"}, yes, yes, yes])
    return start_review(ReviewRequest(workspace=ws, files=["paging.py"], request=request),
                        llm, store, None)


def test_a_check_left_failing_only_on_an_invented_raise_is_dropped_and_the_rest_stays(
        tmp_path, store):
    # fails on the code under review by its assertion (kept), then, after the right fix,
    # only because get_page(items, 3, 2) does not raise IndexError: no one asked for that.
    # The raises block goes, the assertion stays and passes: the reviewer model's "no" (as
    # the 1.5B's on off_by_one) does not hold the right fix back
    out = _paging_review(tmp_path, store, "Pages are numbered from 1, but get_page(items, 1, "
                                          "size) does not return the first items. Fix it.",
                         approved=False)
    assert out.status == "awaiting_approval", out.message
    shown = out.review_feedback["request_test"]
    assert "test_get_page now fail only because IndexError is not raised, which the request " \
           "never asks for: those checks are dropped, the rest stays" in shown["set_aside"]
    assert shown["tests"] == ["test_get_page"] and shown["passes"] is True
    assert "IndexError" not in shown["content"] and "== [1, 2]" in shown["content"]
    assert out.review_feedback["tests"]["failed"] == 0


def test_a_raise_the_request_asks_for_keeps_blocking(tmp_path, store):
    out = _paging_review(tmp_path, store, "Pages are numbered from 1, but get_page(items, 1, "
                                          "size) does not return the first items, and a page "
                                          "past the end must raise IndexError. Fix it.")
    assert out.status == "failed"
    assert out.review_feedback["request_test"]["set_aside"] is None
    assert any("DID NOT RAISE" in issue for issue in out.review_feedback["issues"])
