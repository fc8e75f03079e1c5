"""The matcher and grep_search stay bounded on hostile or huge text, and keep their behaviour on
ordinary files (test_matcher.py holds the ordinary cases)."""

from __future__ import annotations

import time

from codeloop.tools.matcher import (
    MAX_FUZZY_TARGET_CHARS,
    MAX_OCCURRENCES_SHOWN,
    apply_edit,
    closest_candidates,
)
from codeloop.tools.regex_search import MAX_PATTERN_CHARS
from codeloop.tools.search_tools import MAX_COUNTED_MATCHES


def _timed(fn, *args):
    started = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - started


def test_an_exact_match_occurring_a_million_times_is_counted_but_not_walked():
    result, seconds = _timed(apply_edit, "x = 1\n" * 1_000_000, "x = 1\n", "x = 2\n")
    assert not result.ok and "1000000 times" in result.problem
    assert "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)" in result.problem
    assert seconds < 2


def test_a_tolerant_match_in_a_repetitive_file_stops_counting_at_the_cap():
    content = "    total += step\n" * 200_000
    result, seconds = _timed(apply_edit, content, "total  +=  step", "total -= step")
    assert not result.ok
    assert f"at least {MAX_OCCURRENCES_SHOWN} times" in result.problem
    assert seconds < 2


def test_a_tolerant_match_still_finds_its_one_place_among_similar_lines():
    content = "a = 1\n" * 5_000 + "    b = 2\n    c = 3\n" + "a = 1\n" * 5_000
    result = apply_edit(content, "b = 2\nc = 3", "b = 20\nc = 30")
    assert result.ok and result.kind == "whitespace"
    assert (result.start_line, result.end_line) == (5_001, 5_002)
    assert "    b = 20\n    c = 30\n" in result.new_content


def test_candidates_in_an_ordinary_file_are_the_best_window():
    lines = [f"def handler_{i}(event):\n    return process(event, {i})\n" for i in range(1_000)]
    content = "".join(lines)
    found, seconds = _timed(closest_candidates, content,
                            "def handler_517(evt):\n    return process(evt, 517)")
    assert found and found[0].start_line == 2 * 517 + 1
    assert "def handler_517(event):" in found[0].text
    assert seconds < 2


def test_candidate_scoring_on_a_huge_repetitive_file_is_capped():
    content = "value = compute(value)\n" * 80_000
    old_text = "value = compute(value)\n" * 800 + "other = 1\n"  # 18k chars
    found, seconds = _timed(closest_candidates, content, old_text)
    assert found and found[0].similarity > 0.9  # degraded to sampled windows, still useful
    assert seconds < 5


def test_an_oversized_old_text_gets_no_candidates_rather_than_work():
    old_text = "y" * (MAX_FUZZY_TARGET_CHARS + 1)
    found, seconds = _timed(closest_candidates, "y\n" * 100_000, old_text)
    assert found == [] and seconds < 1


def test_grep_search_caps_pattern_length_and_match_count(box, ws):
    (ws.root / "many.py").write_text("hit = 1\n" * (MAX_COUNTED_MATCHES + 500))
    long = box.run("grep_search", {"pattern": "a" * (MAX_PATTERN_CHARS + 1)})
    assert not long.ok and "limit" in long.output
    many = box.run("grep_search", {"pattern": "hit"})
    assert many.ok and f"stopped at {MAX_COUNTED_MATCHES} matches" in many.output
    assert len([line for line in many.output.splitlines() if line.startswith("many.py:")]) == 50


def test_grep_search_keeps_its_ordinary_behaviour(box, ws):
    (ws.root / "m.py").write_text("def Foo(x):\n    return bar(x)\n")
    assert "m.py:1: def Foo(x):" in box.run("grep_search", {"pattern": r"def \w+\("}).output
    assert "m.py:1" in box.run("grep_search", {"pattern": "foo"}).output  # case-insensitive
    assert "No matches" in box.run("grep_search", {"pattern": "foo",
                                                   "case_sensitive": True}).output
    literal = box.run("grep_search", {"pattern": "bar(x"})  # not a regex: searched as text
    assert literal.ok and "m.py:2: return bar(x)" in literal.output
