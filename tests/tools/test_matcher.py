"""The edit matcher: exact, whitespace-tolerant, ambiguous and failed-with-candidates."""

from codeloop.tools.matcher import apply_edit, closest_candidates, format_candidates

SOURCE = '''def add(a, b):
    return a + b


class Calc:
    def mul(self, a, b):
        result = a * b
        return result
'''


def test_exact_match_replaces_the_one_occurrence():
    result = apply_edit(SOURCE, "return a + b", "return a + b + 0")
    assert result.ok and result.kind == "exact"
    assert "return a + b + 0" in result.new_content
    assert (result.start_line, result.end_line) == (2, 2)


def test_exact_match_occurring_twice_is_refused_with_lines():
    text = "x = 1\ny = 2\nx = 1\n"
    result = apply_edit(text, "x = 1", "x = 3")
    assert not result.ok
    assert "2 times" in result.problem and "1, 3" in result.problem


def test_wrong_indentation_matches_and_new_text_is_reindented():
    # The model typed the method body without the class indentation.
    old = "def mul(self, a, b):\n    result = a * b\n    return result"
    new = "def mul(self, a, b):\n    return a * b"
    result = apply_edit(SOURCE, old, new)
    assert result.ok and result.kind == "whitespace"
    assert "    def mul(self, a, b):\n        return a * b\n" in result.new_content
    assert "result = a * b" not in result.new_content
    compile(result.new_content, "x.py", "exec")


def test_trailing_spaces_and_missing_blank_line_still_match():
    old = "    return a + b   \nclass Calc:"  # the two blank lines between are left out
    result = apply_edit(SOURCE, old, "    return b + a\n\n\nclass Calculator:")
    assert result.ok and result.kind == "whitespace"
    assert "return b + a" in result.new_content and "class Calculator:" in result.new_content
    assert "class Calc:" not in result.new_content
    assert result.new_content.endswith("        return result\n")


def test_deeper_model_indent_is_shifted_back():
    old = "        def add(a, b):\n            return a + b"
    new = "        def add(a, b):\n            return b + a"
    result = apply_edit(SOURCE, old, new)
    assert result.ok
    assert result.new_content.startswith("def add(a, b):\n    return b + a\n")


def test_ambiguous_tolerant_match_is_refused():
    text = "if x:\n    pass\nif y:\n  pass\n"
    result = apply_edit(text, "pass", "return")  # exact twice
    assert not result.ok
    result = apply_edit(text, "   pass  ", "return")  # tolerant twice
    assert not result.ok and "2 times" in result.problem


def test_no_match_changes_nothing_and_offers_closest_candidates():
    result = apply_edit(SOURCE, "def mult(self, x, y):\n    res = x * y", "pass")
    assert not result.ok and result.new_content is None
    assert result.candidates, "a near miss should come with candidates"
    best = result.candidates[0]
    assert best.start_line == 6 and "def mul(self, a, b):" in best.text
    shown = format_candidates(result.candidates)
    assert "lines 6-7" in shown and "    6|     def mul(self, a, b):" in shown


def test_unrelated_text_gives_no_candidates_but_a_hint():
    result = apply_edit(SOURCE, "import numpy as np\nnp.zeros(3)", "pass")
    assert not result.ok and result.candidates == ()
    assert "read the file again" in format_candidates(result.candidates)


def test_candidates_do_not_overlap():
    text = "\n".join(f"value_{i} = {i}" for i in range(20)) + "\n"
    found = closest_candidates(text, "value_3 = 33\nvalue_4 = 44")
    spans = [(c.start_line, c.end_line) for c in found]
    for i, (a1, a2) in enumerate(spans):
        for b1, b2 in spans[i + 1:]:
            assert a2 < b1 or b2 < a1


def test_empty_and_identical_edits_are_refused():
    assert "empty" in apply_edit(SOURCE, "  \n", "x").problem
    assert "same" in apply_edit(SOURCE, "return a + b", "return a + b").problem
