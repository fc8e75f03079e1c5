"""A multi-agent run started through the API stores what the CLI stores: the plan, each
round's implementation report and the validator's verdicts (the server built the result by
hand and dropped them), and its run page in a real browser shows them. Scripted model, real
sandbox, real git, real store."""

from __future__ import annotations

import json

from server_kit import (
    chromium_page,
    live_server,
    needs_chromium,
    served,
    start,
    wait_status,
    write_script,
)

PLAN = {"analysis": "A module with greet(name) is needed.",
        "files_to_create": ["greet.py"], "files_to_modify": [],
        "steps": [{"seq": 1, "action": "create", "file": "greet.py",
                   "details": "greet(name) returns 'hi ' + name"}],
        "considerations": ["keep it to one function"]}
RIGHT = "def greet(name):\n    return 'hi ' + name\n"


def _finish(**args) -> list[str]:
    """The agent's finish action in its two-step form: the choice, then the arguments."""
    return [json.dumps({"thought": "done", "tool": "finish"}), json.dumps(args)]


def _replies() -> list[str]:
    """The planner's plan, the implementer's file, the validator's approval."""
    return [*_finish(**PLAN), f"FILE: greet.py\n```python\n{RIGHT}```\n",
            *_finish(status="approved", changes_summary="greet.py added with greet(name)",
                     quality_score=9.0, issues=[], fix_instructions="")]


def test_a_multi_agent_run_from_the_api_keeps_plan_reports_and_verdicts(tmp_path):
    home = tmp_path / "proj"
    home.mkdir()
    (home / "README.md").write_text("# demo\n")
    spec = write_script(tmp_path, _replies(), "multi.yaml")
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


@needs_chromium
def test_the_run_page_shows_the_plan_and_each_round(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from codeloop.config import Settings
    from codeloop.server.app import create_app

    expect.set_options(timeout=90_000)
    (tmp_path / "proj").mkdir()
    spec = write_script(tmp_path, _replies(), "multi.yaml")
    app = create_app(Settings(model=spec, sandbox_timeout=20), [tmp_path], None,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/")
        started = page.request.post(f"{url}/api/runs", data={"job": "agent", "params": {
            "workspace": "proj", "request": "Add greet.py with greet(name)",
            "multi_agent": True, "init_git": True}})
        assert started.status == 202, started.text()
        page.goto(f"{url}/#/runs/{started.json()['run_id']}")
        plan = page.locator("#agent-plan")
        expect(plan).to_contain_text(PLAN["analysis"])
        step = "create greet.py: greet(name) returns 'hi ' + name"
        expect(plan.locator("ol li")).to_have_text([step])
        expect(plan).to_contain_text("keep it to one function")
        rounds = page.locator("#agent-rounds li.round")
        expect(rounds).to_have_count(1)
        expect(rounds.locator(".implementation")).to_contain_text("success; created greet.py")
        expect(rounds.locator(".validation")).to_contain_text(
            "approved (quality 9.0/10): greet.py added with greet(name)")
    assert errors == []
