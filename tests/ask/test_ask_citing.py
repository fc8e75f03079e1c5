"""Every answer cites: an answer with no grounded path:line gets one more round that asks for
it (and shows the places it may cite), then says plainly that it is uncited. On the scripted
model, through the real graph."""

from __future__ import annotations

from codeloop.ask.citing import UNCITED
from codeloop.ask.service import ask
from codeloop.llm.scripted import ScriptedLLM

QUESTION = "Where is the inventory value computed?"
STEPS = {"match": "Plan how to complete the task",
         "json": {"steps": ["Find the function", "Read it", "Answer"]}}
ANSWER = "Code from the repository"
CITE = "It cites no line"


def test_an_uncited_answer_gets_one_more_round_and_keeps_the_cited_one(pyapp):
    cited = "`inventory_value` sums every `item.total()` (pyapp/report.py:6-8)."
    llm = ScriptedLLM([STEPS, {"match": ANSWER, "reply": "It sums the items."},
                       {"match": CITE, "reply": cited}])
    result = ask(QUESTION, pyapp, llm)
    assert result.final_output == cited
    assert result.grounding["grounded"] == 1
    asked = llm.calls[-1][-1].content
    assert "It sums the items." in asked and "pyapp/report.py:6-8 (inventory_value)" in asked


def test_an_answer_still_uncited_after_the_round_says_so_plainly(pyapp):
    llm = ScriptedLLM([STEPS, {"match": ANSWER, "reply": "It sums the items."},
                       {"match": CITE, "reply": "It sums them, in report.py."}])
    result = ask(QUESTION, pyapp, llm)
    assert result.final_output == f"It sums the items.\n\n{UNCITED}"
    assert result.grounding["grounded"] == 0
    assert len(llm.calls) == 3  # one more round, not a loop


def test_an_invented_citation_counts_as_none(pyapp):
    invented = "`inventory_value` is at pyapp/ledger.py:40."  # no such file
    cited = "`inventory_value` (pyapp/report.py:6) sums the items."
    llm = ScriptedLLM([STEPS, {"match": ANSWER, "reply": invented},
                       {"match": CITE, "reply": cited}])
    assert ask(QUESTION, pyapp, llm).final_output == cited


def test_a_cited_answer_costs_no_extra_round(pyapp):
    cited = "`inventory_value` (pyapp/report.py:6) sums the items."
    llm = ScriptedLLM([STEPS, {"match": ANSWER, "reply": cited}])
    result = ask(QUESTION, pyapp, llm)
    assert result.final_output == cited and len(llm.calls) == 2
