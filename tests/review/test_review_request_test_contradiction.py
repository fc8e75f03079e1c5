"""A request test that demands a raise from the very call a passing workspace test expects
to return is refused when written (review/request_test_contradiction.py): measured on the
1.5B, swallowed_exception's request test wanted a missing settings file to raise, which the
workspace's test of that call forbids, and led the refiner away from its right first answer.
On the scripted model, with the real sandbox and pytest."""

from __future__ import annotations

from test_review_request_test_conflict import ASKED, BAD_JSON, HEAD, NO, REQUEST, RIGHT, SETTINGS

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.request_test_contradiction import raise_against_the_spec, returning_calls
from codeloop.review.service import ReviewRequest, start_review

WORKSPACE_TEST = ("from settings import DEFAULTS, load_settings\n\n\n"
                  "def test_missing_file_gives_defaults(tmp_path):\n"
                  "    assert load_settings(tmp_path / 'absent.json') == DEFAULTS\n")
MISSING = ('def test_missing_file_raises(tmp_path):\n    with pytest.raises(ValueError):\n'
           '        load_settings(tmp_path / "absent.json")\n')
DID_NOT_RAISE = "E       Failed: DID NOT RAISE <class 'ValueError'>"


def _request_test(text: str) -> dict:
    return {"match": ASKED, "times": 1,
            "reply": f"FILE: test_codeloop_request.py\n```python\n{text}```"}


def test_a_request_test_against_a_passing_workspace_test_is_refused_when_written(
        tmp_path, store):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "settings.py").write_text(SETTINGS)
    (ws / "test_settings.py").write_text(WORKSPACE_TEST)
    llm = ScriptedLLM([_request_test(HEAD + MISSING), _request_test(HEAD + BAD_JSON),
                       f"FILE: settings.py\n```python\n{RIGHT}```", NO])
    out = start_review(ReviewRequest(workspace=ws, files=["settings.py"], request=REQUEST),
                       llm, store, None)
    second_writing = llm.calls[1][-1].content
    assert "test_missing_file_raises is wrong itself: it expects " \
           "`load_settings(tmp_path / 'absent.json')` to raise, but " \
           "test_settings.py::test_missing_file_gives_defaults makes that same call" \
           in second_writing
    shown = out.review_feedback["request_test"]
    assert shown["tests"] == ["test_bad_json_raises"] and shown["set_aside"] is None
    # the request test verified the right change, so the bare objection did not hold it
    assert out.status == "awaiting_approval" and shown["passes"] is True
    assert "except FileNotFoundError" in out.pending_diffs[-1]["modified_content"]


def test_only_the_same_self_contained_call_in_a_passing_test_counts():
    defined = {"load_settings"}
    returning = returning_calls({"test_settings.py": WORKSPACE_TEST}, set(), defined)
    assert returning == {"load_settings(tmp_path / 'absent.json')":
                         "test_settings.py::test_missing_file_gives_defaults"}
    source = HEAD + MISSING
    assert raise_against_the_spec(source, "test_missing_file_raises", DID_NOT_RAISE,
                                  returning, defined)
    # failing another way (it raised something else): not this rule's to judge
    assert raise_against_the_spec(source, "test_missing_file_raises",
                                  "E   KeyError: 'x'", returning, defined) is None
    # the workspace test failed before the change: it specifies nothing that holds now
    failing = {("test_settings.py", "test_missing_file_gives_defaults")}
    assert returning_calls({"test_settings.py": WORKSPACE_TEST}, failing, defined) == {}
    # the file is written first: the same expression, another situation
    arranged = ("def test_missing_file_raises(tmp_path):\n"
                "    (tmp_path / 'absent.json').write_text('{')\n"
                "    with pytest.raises(ValueError):\n"
                "        load_settings(tmp_path / 'absent.json')\n")
    assert raise_against_the_spec(HEAD + arranged, "test_missing_file_raises", DID_NOT_RAISE,
                                  returning, defined) is None
    # a variable argument says nothing of what was arranged in it
    by_name = WORKSPACE_TEST.replace("load_settings(tmp_path / 'absent.json')",
                                     "load_settings(path)")
    assert returning_calls({"test_settings.py": by_name}, set(), defined) == {}
    # a call the workspace test expects to raise too is no contradiction
    raising = ("import pytest\nfrom settings import load_settings\n\n\n"
               "def test_missing(tmp_path):\n    with pytest.raises(OSError):\n"
               "        load_settings(tmp_path / 'absent.json')\n")
    assert returning_calls({"test_settings.py": raising}, set(), defined) == {}
