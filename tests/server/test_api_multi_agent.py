"""A multi-agent run started through the API stores what the CLI stores: the plan, each
round's implementation report and the validator's verdicts (the server built the result by
hand and dropped them). Scripted model, real sandbox, real git, real store."""

from __future__ import annotations

import json

from server_kit import served, start, wait_status, write_script

PLAN = {"analysis": "A module with greet(name) is needed.",
        "files_to_create": ["greet.py"], "files_to_modify": [],
        "steps": [{"seq": 1, "action": "create", "file": "greet.py",
                   "details": "greet(name) returns 'hi ' + name"}],
        "considerations": ["keep it to one function"]}
RIGHT = "def greet(name):\n    return 'hi ' + name\n"


def _finish(**args) -> list[str]:
    """The agent's finish action in its two-step form: the choice, then the arguments."""
    return [json.dumps({"thought": "done", "tool": "finish"}), json.dumps(args)]


def test_a_multi_agent_run_from_the_api_keeps_plan_reports_and_verdicts(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    (home / "README.md").write_text("# demo\n")
    replies = [*_finish(**PLAN), f"FILE: greet.py\n```python\n{RIGHT}```\n",
               *_finish(status="approved", changes_summary="greet.py added with greet(name)",
                        quality_score=9.0, issues=[], fix_instructions="")]
    spec = write_script(tmp_path, replies, "multi.yaml")
    with served(tmp_path) as client:
        run_id = start(client, "agent", {"workspace": "proj", "request": "Add greet.py with "
                                         "greet(name)", "multi_agent": True, "model": spec,
                                         "init_git": True})
        detail = wait_status(client, run_id, {"done", "succeeded", "failed", "needs_review",
                                              "error"})
    result = detail["result"]
    assert result["status"] == "approved", result
    assert result["plan"]["analysis"] == PLAN["analysis"]
    assert [s["file"] for s in result["plan"]["steps"]] == ["greet.py"]
    [report] = result["implementations"]
    assert report["status"] == "success" and report["files_created"] == ["greet.py"]
    [verdict] = result["validations"]
    assert verdict["status"] == "approved"
    assert verdict["changes_summary"] == "greet.py added with greet(name)"
    assert result["rounds"] == 1
    assert (home / "greet.py").read_text() == RIGHT
