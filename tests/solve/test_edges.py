"""Edge calls (solve/edges.py): code that passes every example but crashes when an argument
of an example is made empty or cut to one item gets a round told the crash; a new
candidate replaces it only if it crashes less and returns the same values elsewhere."""

from __future__ import annotations

import pytest

from codeloop.solve.edges import crash_lines, deliberate_raises, edge_calls, keeps_values
from codeloop.solve.rounds import EDGE_ROUNDS
from codeloop.solve.state import CORRECT
from codeloop.solve.tasks import Task
from codeloop.solve.verify import EDGE_WARNING


@pytest.fixture
def last_task() -> Task:
    return Task(task_id="last", signature="def last_word(text: str) -> str",
                docstring="The last word of text ('' when there is none).",
                examples="last_word('a b') == 'b'\nlast_word('one two three') == 'three'")


def _code(body: str) -> str:
    return f"```python\ndef last_word(text: str) -> str:\n{body}\n```"


CRASHES = _code("    return text.split()[-1]")  # IndexError on ''
FIXED = _code("    words = text.split()\n    return words[-1] if words else ''")
# Fixes the crash but changes a value the crashing code returned: last_word('a') -> ''.
FIXED_BUT_OTHER = _code("    words = text.split()\n    return words[-1] if len(words) > 1 else ''")
STILL_CRASHES = _code("    parts = text.split()\n    return parts[len(parts) - 1]")


def test_edge_calls_shrink_one_literal_argument_of_each_example():
    calls = edge_calls(["f([3, 1, 2], 'ab') == 1", "f([5], 'x') == 5"], "f")
    assert calls == ["f([], 'ab')", "f([3], 'ab')", "f([3, 1, 2], '')", "f([3, 1, 2], 'a')",
                     "f([], 'x')", "f([5], '')"]
    # no edge call repeats an example, and non-literal or keyword calls are left alone
    assert edge_calls(["f([]) == 0", "f([1, 2]) == 3"], "f") == ["f([1])"]
    assert edge_calls(["f(x) == 1", "f(a=[1]) == 1", "g([1, 2]) == 1"], "f") == []
    assert len(edge_calls([f"f([{n}, 9]) == 0" for n in range(9)], "f")) == 6


def test_crashes_are_told_and_deliberate_refusals_are_not():
    code = "def f(x):\n    if not x:\n        raise ValueError('empty')\n    return x[5]\n"
    assert deliberate_raises(code) == {"ValueError"}
    results = [("error", "ValueError: empty"), ("error", "IndexError: list index out of range"),
               ("timeout", "timed out after 3s"), ("fail", "(1,) returned 1, expected ()")]
    assert crash_lines(["f([])", "f([1])", "f('')", "f('a')"], results, code) == [
        "f([1]) raised IndexError: list index out of range", "f('') did not return (timed out after 3s)"]
    # the message is the candidate's to make long: what is told of it is cut
    [line] = crash_lines(["f([])"], [("error", "KeyError: " + "x" * 10_000)], "")
    assert line.startswith("f([]) raised KeyError: xxx") and len(line) < 230


def test_keeps_values_compares_only_where_the_old_code_returned_a_value():
    old = ["raises IndexError", "value 'a'"]
    assert keeps_values(old, ["value ''", "value 'a'"])
    assert not keeps_values(old, ["value ''", "value ''"])
    assert not keeps_values(old, ["value ''"])


def test_a_crash_on_an_edge_call_buys_a_sample_told_it_and_the_fix_is_kept(last_task, run):
    r = run(last_task, [CRASHES, FIXED], seed=4)
    assert r.result.verdict == CORRECT
    assert "if words else ''" in r.result.code
    assert [(a["strategy"], a["accepted"]) for a in r.result.attempts] == [
        ("draft", True), ("edge", True)]
    assert "last_word('') raised IndexError" in r.prompts()[1]
    details = [e.detail for e in r.recorder.of_type("stage_start") if e.stage == "refinement"]
    assert details == ["round 1 of 3: the code passes its tests and crashes on an edge input"]
    assert r.result.refinement_count == 1 and r.llm.remaining == 0
    assert not any(EDGE_WARNING in w for w in r.result.review["warnings"])


def test_a_fix_that_changes_other_values_is_refused_and_the_warning_stays(last_task, run):
    r = run(last_task, [CRASHES, FIXED_BUT_OTHER, FIXED])
    # the edge round's candidate returns another value for last_word('a'): refused, and
    # the one edge round is spent (the next reply is never asked for)
    assert [(a["strategy"], a["accepted"]) for a in r.result.attempts] == [
        ("draft", True), ("edge", False)]
    assert EDGE_ROUNDS == 1 and r.llm.remaining == 1
    assert r.result.verdict == CORRECT and "split()[-1]" in r.result.code
    warning = next(w for w in r.result.review["warnings"] if EDGE_WARNING in w)
    assert "last_word('') raised IndexError" in warning
    assert r.result.attempts[0]["feedback"].splitlines() == [
        "all tests passed", "edge: last_word('') raised IndexError: list index out of range"]


def test_edge_checks_can_be_switched_off(last_task, run):
    r = run(last_task, [CRASHES], edge_checks=False)
    assert [a["strategy"] for a in r.result.attempts] == ["draft"]
    assert r.result.verdict == CORRECT and r.llm.remaining == 0


def test_no_edge_rounds_without_refinement_rounds(last_task, run):
    r = run(last_task, [CRASHES, FIXED], max_refinements=0)
    assert [a["strategy"] for a in r.result.attempts] == ["draft"]
    assert r.llm.remaining == 1


def test_a_candidate_that_crashes_as_much_is_refused(last_task, run):
    r = run(last_task, [CRASHES, STILL_CRASHES])
    assert [(a["strategy"], a["accepted"]) for a in r.result.attempts] == [
        ("draft", True), ("edge", False)]
    assert "split()[-1]" in r.result.code and r.llm.remaining == 0
