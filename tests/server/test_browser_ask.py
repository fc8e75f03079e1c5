"""ask in a real browser (Debian's chromium) on a real server, scripted model: started from
the start form, its answer is a rendered report, not JSON: the answer's text (model text: a
tag in it stays text), each `path:line` it cites marked grounded or not, the citations listed
with why, and the score panel with the five metrics and the overall score. The screenshot is
kept (ask.png)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from server_kit import chromium_page, live_server, needs_chromium, write_script

from codeloop.config import Settings
from codeloop.server.app import create_app
from codeloop.server.auth import generate_token

pytestmark = needs_chromium

FIXTURES = Path(__file__).parents[1] / "ask" / "fixtures"
REASONER = "Plan how to complete the task"
ANSWER = "Code from the repository"
# Markdown with a heading, a list, two grounded citations and an invented one, and a tag
# that must show as text (the answer is model text, never parsed as HTML).
REPORT = ("## Where it is computed\n\n"
          "`inventory_value` adds up `item.total()` for every item (pyapp/report.py:6-8).\n\n"
          "- each `total` is quantity times price (pyapp/models.py:12)\n"
          "- a cache keeps it (pyapp/cache.py:3) <img src=x onerror=alert(1)>\n")
STEPS = {"match": REASONER, "json": {"steps": ["Find the function that sums the items",
                                               "Read inventory_value", "Answer citing lines"]}}


def test_ask_from_the_form_shows_a_rendered_report(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)
    shots = Path(os.environ.get("CODELOOP_SCREENSHOTS_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    root = tmp_path / "root"
    root.mkdir()
    shutil.copytree(FIXTURES / "pyapp", root / "pyapp")
    spec = write_script(root, [STEPS, {"match": ANSWER, "reply": REPORT}], "default.yaml")
    token = generate_token()
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], token,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    dialogs: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(f"{url}/?token={token}")
        page.select_option("#start-job", "ask")
        form = page.locator("#start-form")
        form.locator("input[name=repo]").fill("pyapp")
        form.locator("textarea[name=question]").fill("Where is the inventory value computed?")
        form.locator("button[type=submit]").click()
        page.wait_for_url("**/#/runs/ask-*")

        report = page.locator("#ask-report")
        expect(report).to_be_visible()
        answer = report.locator("#ask-answer")
        expect(answer.locator("h4")).to_have_text("Where it is computed")
        expect(answer.locator("li")).to_have_count(2)
        expect(answer).to_contain_text("<img src=x onerror=alert(1)>")  # as text
        assert answer.locator("img").count() == 0
        expect(answer.locator(".cite.grounded")).to_have_count(2)
        expect(answer.locator(".cite.invented")).to_have_text(["pyapp/cache.py:3"])

        citations = report.locator("#ask-citations li")
        expect(citations).to_have_count(3)
        expect(citations.nth(0)).to_contain_text("pyapp/report.py:6-8")
        expect(citations.nth(0).locator(".badge")).to_have_text("grounded")
        expect(citations.nth(2)).to_contain_text("invented")
        expect(citations.nth(2)).to_contain_text("no such file in the repository")

        scores = report.locator("#ask-scores")
        expect(scores.locator("tr[data-metric]")).to_have_count(5)
        expect(scores.locator("tr[data-metric=task_completion] td").nth(2)).to_have_text("35")
        assert float(scores.locator("#ask-overall").inner_text()) > 0
        expect(scores.locator("#ask-grounding")).to_contain_text("2/3 citations grounded")
        assert "{" not in report.inner_text()  # a report, not the result's JSON
        header = page.locator(".run-header").inner_text()
        assert "null" not in header and "undefined" not in header
        report.screenshot(path=str(shots / "ask.png"))
    assert errors == [] and dialogs == []
    assert (shots / "ask.png").stat().st_size > 5_000
