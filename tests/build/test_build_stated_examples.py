"""The examples a task's text states go beside the model's tests, and judge them when they
disagree with code that meets the examples (stated_examples.py, unmet_tests.py): the 1.5B's
own tests carried made-up expected values, and tasks were retried until the cap."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.example_contradictions import contradictions, without_contradictions
from codeloop.build.stated_examples import is_examples_file, stated_examples

S1 = ("Short codes in app.codes: function encode(n) -> the base-62 text of a non-negative "
      "integer n (encode(0) == '0', encode(61) == 'Z', encode(62) == '10'), and function "
      "decode(code) -> the integer back; decode(encode(n)) == n.")


def test_literal_examples_of_the_tasks_functions_are_taken_once_in_order():
    assert stated_examples(S1.split(";")[0] + " encode(0) == '0'", ["encode", "decode"]) == [
        "encode(0) == '0'", "encode(61) == 'Z'", "encode(62) == '10'"]
    # not a function the task builds, not literal, nested calls
    text = ("round(2.5) == 2; slugify(title) == 'x'; total([]) == 0; "
            "slugify('Hello, World!') == 'hello-world'")
    assert stated_examples(text, ["slugify", "total"]) == [
        "total([]) == 0", "slugify('Hello, World!') == 'hello-world'"]
    assert is_examples_file("tests/test_codes_examples.py")
    assert not is_examples_file("tests/test_codes.py")


def test_own_tests_that_disagree_with_code_meeting_the_examples_go(build):
    """Two of the model's three tests expect made-up values (more than half: without the
    examples they would stay and block the task); the code meets the stated examples."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": "Pricing in app.pricing: function line_total(quantity, "
                                   "price) -> quantity * price (line_total(2, 3.5) == 7.0)",
         "depends_on": []}]}
    tests = ("from app.pricing import line_total\n\n\ndef test_one():\n"
             "    assert line_total(1, 2.0) == 2.0\n\n\ndef test_made_up():\n"
             "    assert line_total(2, 2.0) == 5.0\n\n\ndef test_made_up_too():\n"
             "    assert line_total(3, 1.0) == 4.0\n")
    code = "def line_total(quantity, price):\n    return quantity * price\n"
    agents = {"task:A": [reply_with_tests(tests), *[file_reply(("app/pricing.py", code))] * 5],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    examples = (built.out / "tests" / "test_a_examples.py").read_text()
    assert "assert line_total(2, 3.5) == 7.0" in examples
    kept = (built.out / "tests" / "test_a.py").read_text()
    assert "def test_one" in kept and "made_up" not in kept
    assert any("dropped 2 of 3 tests in tests/test_a.py" in m
               and "while the examples the task states pass" in m for m in built.progress())


DISCOUNT = ("Pricing in app.pricing: function apply_discount(price, percent) -> price reduced "
            "by percent per cent, rounded to 2 decimals. apply_discount(200.0, 15) == 170.0.")


def test_a_test_asserting_a_stated_call_with_another_result_is_found():
    """The 1.5B's first tests of inventory's I2 held the row (200.0, 15, 215.0) against the
    task's `apply_discount(200.0, 15) == 170.0`."""
    stated = stated_examples(DISCOUNT, ["apply_discount"])
    tests = ("import pytest\nfrom app.pricing import apply_discount\n\n\n"
             "@pytest.mark.parametrize('price, percent, expected', [\n"
             "    (100.0, 15, 85.0),\n    (200.0, 15, 215.0),\n])\n"
             "def test_table(price, percent, expected):\n"
             "    assert apply_discount(price, percent) == expected\n\n\n"
             "def test_direct():\n    assert 170.00000000001 == apply_discount(200, 15)\n\n\n"
             "def test_other_call():\n    assert apply_discount(300.0, 15) == 1.0\n\n\n"
             "def test_keywords():\n    assert apply_discount(price=200.0, percent=15) == 1.0\n")
    found = contradictions(tests, stated)
    assert list(found) == ["test_table"]
    assert found["test_table"] == ("it asserts apply_discount(200.0, 15) == 215.0; the task "
                                   "states apply_discount(200.0, 15) == 170.0")
    kept, dropped = without_contradictions(tests, stated)
    assert list(dropped) == ["test_table"] and "def test_table" not in kept
    assert "def test_direct" in kept and "def test_other_call" in kept
    # every test function contradicts: the file stays as it is (the later rules judge it)
    only = "from app.pricing import apply_discount\n\n\ndef test_t():\n" \
           "    assert apply_discount(200.0, 15) == 30.0\n"
    assert without_contradictions(only, stated) == (only, {})
    assert contradictions("def test_broken(:\n", stated) == {}


def test_the_contradicting_test_goes_before_any_code_is_asked_for(build):
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": DISCOUNT, "depends_on": []}]}
    tests = ("import pytest\n\nfrom app.pricing import apply_discount\n\n\n"
             "def test_small():\n    assert apply_discount(100.0, 10) == 90.0\n\n\n"
             "@pytest.mark.parametrize('price, percent, expected', [(200.0, 15, 215.0)])\n"
             "def test_made_up(price, percent, expected):\n"
             "    assert apply_discount(price, percent) == expected\n")
    code = ("def apply_discount(price, percent):\n"
            "    return round(price * (1 - percent / 100), 2)\n")
    agents = {"task:A": [reply_with_tests(tests), file_reply(("app/pricing.py", code))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    kept = (built.out / "tests" / "test_a.py").read_text()
    assert "def test_small" in kept and "made_up" not in kept
    assert any("test_made_up left out of the tests: it asserts apply_discount(200.0, 15) == "
               "215.0" in line for line in built.progress())
    # one code reply was enough: no round went to the contradicting test
    assert not any("tests failed" in line for line in built.progress())


def test_code_standing_by_a_failing_stated_example_gets_the_blanked_round(build):
    """The 1.5B's shortener S1 at ec2b586 sent `encode` back unchanged with `encode(0) == ''`
    against the stated `encode(0) == '0'`; the rounds ended as if its own tests were wrong,
    the test repair round was spent, and the task took 11 of the graph's 12 minutes."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": "Codes in app.codes: function encode(n) -> n in base 10 as "
                                   "text (encode(0) == '0', encode(12) == '12')",
         "depends_on": []}]}
    tests = "from app.codes import encode\n\n\ndef test_one():\n    assert encode(1) == '1'\n"
    wrong = ("def encode(n):\n    out = ''\n    while n:\n        out = str(n % 10) + out\n"
             "        n //= 10\n    return out\n")
    right = "def encode(n):\n    return str(n)\n"
    agents = {"task:A": [reply_with_tests(tests), *[file_reply(("app/codes.py", wrong))] * 3,
                         file_reply(("app/codes.py", right))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    assert (built.out / "app" / "codes.py").read_text() == right
    progress = built.progress()
    assert any("the functions the failure calls asked anew" in line for line in progress)
    assert not any("one round to fix" in line for line in progress)
    blanked = built.llm_for("task:A").calls[4][-1].content
    assert "while n:" not in blanked  # the body that failed is not shown again


def test_a_stated_round_trip_is_checked_on_the_inner_functions_stated_arguments():
    assert stated_examples(S1, ["encode", "decode"]) == [
        "encode(0) == '0'", "encode(61) == 'Z'", "encode(62) == '10'",
        "decode(encode(0)) == 0", "decode(encode(61)) == 61", "decode(encode(62)) == 62"]
    # no argument is made up: without a stated example of the inner function, no check;
    # nor for another variable on the right, a function the task does not build, or one
    # function twice
    assert stated_examples("decode(encode(n)) == n", ["encode", "decode"]) == []
    assert stated_examples("f(1) == 2; g(f(x)) == y", ["f", "g"]) == ["f(1) == 2"]
    assert stated_examples("f(1) == 2; loads(f(x)) == x", ["f"]) == ["f(1) == 2"]
    assert stated_examples("f(1) == 2; f(f(x)) == x", ["f"]) == ["f(1) == 2"]


def test_a_decode_that_breaks_the_stated_round_trip_is_not_merged(build):
    """The 1.5B's shortener S1 (stop 65) merged a decode that read the digits backwards: its
    one decode test failed, was one of two and was dropped as unmet, while the only examples
    checked were encode's. The stated round trip now fails on that code."""
    request = {"tech_stack": "python-api", "tasks": [{"id": "A", "description": S1,
                                                      "depends_on": []}]}
    tests = ("from app.codes import decode, encode\n\n\ndef test_encode():\n"
             "    assert encode(10) == 'a'\n\n\ndef test_decode():\n"
             "    assert decode('10') == 62\n")
    alphabet = "ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'\n"
    encode = ("\n\ndef encode(n):\n    out = ''\n    while True:\n"
              "        n, digit = divmod(n, 62)\n        out = ALPHABET[digit] + out\n"
              "        if not n:\n            return out\n")
    backwards = ("\n\ndef decode(code):\n    n = 0\n    for char in reversed(code):\n"
                 "        n = n * 62 + ALPHABET.index(char)\n    return n\n")
    right = backwards.replace("reversed(code)", "code")
    agents = {"task:A": [reply_with_tests(tests),
                         *[file_reply(("app/codes.py", alphabet + encode + backwards))] * 3,
                         file_reply(("app/codes.py", alphabet + encode + right))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    assert "reversed" not in (built.out / "app" / "codes.py").read_text()
    examples = (built.out / "tests" / "test_a_examples.py").read_text()
    assert "from app.codes import decode, encode" in examples
    assert "assert decode(encode(62)) == 62" in examples
    assert "def test_decode" in (built.out / "tests" / "test_a.py").read_text()
    assert not any("dropped" in line for line in built.progress())


def test_the_only_own_test_goes_when_it_fails_and_the_stated_examples_pass(build):
    """The 1.5B's shortener S1 (59a3c48): one test_encode asserting the stated codes and made
    up ones (`encode(72) == '20'`), the code right; no test of its own was left to keep, so
    nothing was dropped, and S1 was blocked at the cap with S3 and S4 behind it."""
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": "Codes in app.codes: function encode(n) -> n in base 10 as "
                                   "text (encode(0) == '0', encode(12) == '12')",
         "depends_on": []}]}
    tests = ("from app.codes import encode\n\n\ndef test_encode():\n"
             "    assert encode(0) == '0'\n    assert encode(7) == '8'\n")
    code = "def encode(n):\n    return str(n)\n"
    agents = {"task:A": [reply_with_tests(tests), *[file_reply(("app/codes.py", code))] * 3,
                         reply_with_tests(tests)],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    assert "def test_" not in (built.out / "tests" / "test_a.py").read_text()
    assert "assert encode(12) == '12'" in (built.out / "tests" /
                                           "test_a_examples.py").read_text()
    assert any("dropped 1 of 1 tests in tests/test_a.py" in line for line in built.progress())
