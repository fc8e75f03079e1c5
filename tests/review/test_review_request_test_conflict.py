"""A request test that the workspace's own tests contradict stops blocking (review/
request_test_conflict.py): measured on the 1.5B, a request test expecting a missing settings
file to raise ValueError made the refiner break the workspace's test of that very call, and
the review blocked every change until "Max iterations". On the scripted model, with the real
sandbox and pytest."""

from __future__ import annotations

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review

SETTINGS = ('import json\n\nDEFAULTS = {"theme": "light"}\n\n\ndef load_settings(path):\n'
            '    settings = dict(DEFAULTS)\n    try:\n        with open(path) as handle:\n'
            '            settings.update(json.load(handle))\n    except Exception:\n'
            '        pass\n    return settings\n')
# meets the request test, breaks the workspace's: every error becomes a ValueError
EVERY_ERROR = SETTINGS.replace("    except Exception:\n        pass\n",
                               "    except Exception as exc:\n"
                               "        raise ValueError(f'{path}: {exc}') from exc\n")
RIGHT = SETTINGS.replace("    except Exception:\n        pass\n",
                         "    except FileNotFoundError:\n        pass\n"
                         "    except json.JSONDecodeError as exc:\n"
                         "        raise ValueError(f'{path}: {exc}') from exc\n")
# the missing file's path in a variable: the same call as MISSING's, but not one that says
# by itself what it is called with (request_test_contradiction.py leaves it to this rule)
WORKSPACE_TEST = ("from settings import DEFAULTS, load_settings\n\n\n"
                  "def test_missing_file_gives_defaults(tmp_path):\n"
                  "    path = tmp_path / 'absent.json'\n"
                  "    assert load_settings(path) == DEFAULTS\n")
HEAD = "import pytest\nfrom settings import load_settings\n\n\n"
BAD_JSON = ("def test_bad_json_raises(tmp_path):\n    bad = tmp_path / 's.json'\n"
            "    bad.write_text('{')\n    with pytest.raises(ValueError):\n"
            "        load_settings(bad)\n")
MISSING = ("def test_missing_file_raises(tmp_path):\n    path = tmp_path / 'absent.json'\n"
           "    with pytest.raises(ValueError):\n        load_settings(path)\n")
REQUEST = ("load_settings hides every error. A missing file should still give the defaults, "
           "but a file that is not valid JSON must raise ValueError.")
ASKED = "Before anyone changes the code"
NO = {"json": {"approved": False, "issues": [], "suggestions": ["add a docstring"]}}


def _file(text: str) -> str:
    return f"FILE: settings.py\n```python\n{text}```"


def _review(tmp_path, store, tests: str, once_set_aside: str):
    """The refiner sends EVERY_ERROR while the prompt shows test_missing_file_raises (the
    request test as written), `once_set_aside` when it no longer does."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "settings.py").write_text(SETTINGS)
    (ws / "test_settings.py").write_text(WORKSPACE_TEST)
    llm = ScriptedLLM([
        {"match": ASKED, "reply": f"FILE: test_codeloop_request.py\n```python\n{tests}```"},
        {"match": r"^(?![\s\S]*test_missing_file_raises)[\s\S]*Reply with every file",
         "reply": _file(once_set_aside)},
        {"match": "Reply with every file", "reply": _file(EVERY_ERROR)},
        NO, NO, NO])
    return start_review(ReviewRequest(workspace=ws, files=["settings.py"], request=REQUEST),
                        llm, store, None)


def test_a_request_test_the_workspace_test_of_the_same_call_contradicts_is_set_aside(
        tmp_path, store):
    out = _review(tmp_path, store, HEAD + BAD_JSON + "\n\n" + MISSING, RIGHT)
    assert out.status == "awaiting_approval", out.message
    shown = out.review_feedback["request_test"]
    assert shown["tests"] == ["test_bad_json_raises"] and shown["passes"] is True
    assert "test_missing_file_raises passed only with a change that breaks " \
           "test_settings.py::test_missing_file_gives_defaults" in shown["set_aside"]
    assert "load_settings(path)" in shown["set_aside"]
    assert "test_missing_file_raises" not in shown["content"]
    assert out.review_feedback["tests"]["failed"] == 0
    assert "except FileNotFoundError" in out.pending_diffs[-1]["modified_content"]


def test_a_request_test_that_makes_no_call_of_the_broken_test_still_blocks(tmp_path, store):
    # the change broke the workspace's test on its own: the request test is not to blame
    out = _review(tmp_path, store, HEAD + BAD_JSON, EVERY_ERROR)
    assert out.status == "failed"
    shown = out.review_feedback["request_test"]
    assert shown["set_aside"] is None and shown["tests"] == ["test_bad_json_raises"]
    assert any("test_missing_file_gives_defaults" in issue
               for issue in out.review_feedback["issues"]), out.review_feedback["issues"]
