"""A MEDIUM security finding blocks approval when it is on a line the change wrote (the
1.5B on unsafe_yaml: `yaml.load(..., Loader=yaml.Loader)` re-written inside a new try block
was approved); one on a line the change left alone does not fail an unrelated request."""

from __future__ import annotations

from review_helpers import FIX_EDIT, FIXED, approve

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review
from codeloop.review.written_findings import written_line_problems, written_lines

EVAL_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return eval('a + b')\n"
             ">>>>>>> REPLACE\n")
UN_EVAL = ("calc.py\n<<<<<<< SEARCH\n    return eval('a + b')\n=======\n    return a + b\n"
           ">>>>>>> REPLACE\n")


def _start(workspace, store, replies, **kwargs):
    llm = ScriptedLLM(replies)
    return start_review(ReviewRequest(workspace=workspace, **kwargs), llm, store, None), llm


def test_a_medium_finding_the_change_wrote_goes_back_to_the_refiner(workspace, store):
    # eval passes the test and the model approves it: the rule blocks, the refiner is told
    out, llm = _start(workspace, store, [approve(), EVAL_EDIT, UN_EVAL, approve()],
                      files=["calc.py"])
    assert out.status == "awaiting_approval" and llm.remaining == 0
    told = llm.calls[2][-1].content  # the engine's next round, after its own check
    assert "MEDIUM security finding on a line this change wrote, calc.py line 2" in told
    assert out.pending_diffs[0]["modified_content"] == FIXED


def test_a_medium_finding_the_change_did_not_touch_does_not_block(workspace, store):
    (workspace / "calc.py").write_text(
        "def add(a, b):\n    return a - b\n\n\ndef calc(expr):\n    return eval(expr)\n")
    out, llm = _start(workspace, store, [approve(), FIX_EDIT, approve()], files=["calc.py"])
    assert out.status == "awaiting_approval" and llm.remaining == 0
    assert any(f["severity"] == "medium" for f in out.findings)  # still shown
    assert "eval(expr)" in out.pending_diffs[0]["modified_content"]


def test_written_lines_count_a_reindented_line_and_a_new_file():
    before = "def f(t):\n    x = load(t)\n    return x\n"
    after = "def f(t):\n    try:\n        x = load(t)\n    except E:\n        raise\n    return x\n"
    assert written_lines(before, after) == {2, 3, 4, 5}
    assert written_lines(None, "a\nb\n") == {1, 2}
    finding = {"tool": "bandit", "severity": "medium", "line": 3, "file_path": "c.py",
               "message": "B506 yaml"}
    low = {**finding, "severity": "low"}
    guess = {**finding, "tool": "secrets"}  # a test's password = "hunter2" is not blocked
    in_test = {**finding, "file_path": "tests/test_c.py"}
    assert written_line_problems([in_test], before, after) == []
    assert written_line_problems([finding, low, guess], before, after) == [
        ("MEDIUM security finding on a line this change wrote, c.py line 3: B506 yaml: "
         "write it without that pattern")]
    assert written_line_problems([finding], after, after) == []


TOKENS = ('"""Reset tokens."""\n\nimport random\nimport string\nimport subprocess\n\n\n'
          'def reset_token(length=32):\n'
          '    return "".join(random.choice(string.ascii_letters) for _ in range(length))\n\n\n'
          'def host():\n    return subprocess.run(["hostname"], check=False)\n')
KEPT = TOKENS.replace("random.choice(string.ascii_letters)",
                      "random.choice(string.ascii_letters + string.digits)")
SAFE = TOKENS.replace("import random\n", "import secrets\n").replace(
    "random.choice(string.ascii_letters)", "secrets.choice(string.ascii_letters)")


def test_a_flagged_pattern_goes_to_the_first_refinement_and_may_not_be_rewritten_as_is(
        tmp_path, store):
    from review_helpers import NO_REQUEST_TEST

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "tokens.py").write_text(TOKENS)
    whole = "FILE: tokens.py\n```python\n{}```"
    out, llm = _start(ws, store, [NO_REQUEST_TEST, whole.format(KEPT), whole.format(SAFE),
                                  approve()],
                      files=["tokens.py"], request="Make reset_token unpredictable in tokens.py")
    assert out.status == "awaiting_approval", out.message
    first = llm.calls[2][-1].content  # the refiner's first round
    assert "the security gate flags tokens.py line 9 (LOW): B311" in first
    assert "B404" not in first and "B603" not in first  # `import subprocess`, the safe call
    again = llm.calls[3][-1].content  # the rewrite kept random.choice (LOW B311): told so
    assert "LOW security finding the review reported before the change is still on a line " \
           "this change wrote, tokens.py line 9: B311" in again
    assert out.pending_diffs[0]["modified_content"] == SAFE
