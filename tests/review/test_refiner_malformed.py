"""The refiner uses a correct fix the model sent in a malformed SEARCH/REPLACE block (issue
50: it threw such a reply away as "held no edit" and the run ended "Max iterations (3)
reached"): the function the reply holds is merged into the file by name, as the agent's
edit path does. A block that holds no recognisable code for the file is reflected back
with exactly what is wrong with it."""

from __future__ import annotations

import pytest
from review_helpers import BUGGY, FIX_EDIT, FIXED, approve

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review

# calc.py holds two functions; only add is wrong
SOURCE = BUGGY + "\n\ndef sub(a, b):\n    return a - b\n"
WANTED = FIXED + "\n\ndef sub(a, b):\n    return a - b\n"
FIXED_ADD = "def add(a, b):\n    return a + b\n"

MALFORMED = {
    "no-search-part": f"calc.py\n<<<<<<< SEARCH\n=======\n{FIXED_ADD}>>>>>>> REPLACE\n",
    "bare-divider": f"```python\n{BUGGY}=======\n{FIXED_ADD}```\n",
    "identical-search-and-replace": (f"calc.py\n```python\n<<<<<<< SEARCH\n{FIXED_ADD}"
                                     f"=======\n{FIXED_ADD}>>>>>>> REPLACE\n```\n"),
    "no-replace-marker": f"calc.py\n<<<<<<< SEARCH\n{BUGGY}=======\n{FIXED_ADD}",
}


@pytest.mark.parametrize("reply", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_correct_function_in_a_malformed_block_is_used(workspace, store, reply):
    (workspace / "calc.py").write_text(SOURCE)
    llm = ScriptedLLM([approve(), reply, approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    assert out.status == "awaiting_approval", out.message
    [diff] = out.pending_diffs
    assert diff["modified_content"] == WANTED
    assert llm.remaining == 0 and len(out.refinements) == 1
    assert out.refinements[0]["files_changed"] == 1


def test_a_block_with_nothing_usable_is_reflected_with_what_is_wrong(workspace, store):
    # an empty SEARCH part and a bare line: no function to merge, no place to put it
    broken = "calc.py\n<<<<<<< SEARCH\n=======\n    return a + b\n>>>>>>> REPLACE\n"
    llm = ScriptedLLM([approve(), broken, FIX_EDIT, approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    retry = llm.calls[2][-1].content
    assert "SEARCH part is empty" in retry
    assert out.status == "awaiting_approval", out.message
    assert out.pending_diffs[0]["modified_content"] == FIXED


def test_a_reply_without_any_block_or_code_is_told_the_format(workspace, store):
    llm = ScriptedLLM([approve(), "I would change the minus into a plus.", FIX_EDIT,
                       approve()])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    assert "attempt 1 changed no file" in llm.calls[2][-1].content
    assert out.status == "awaiting_approval", out.message
    assert out.pending_diffs[0]["modified_content"] == FIXED
