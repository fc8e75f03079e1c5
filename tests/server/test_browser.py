"""The web UI end to end in a real browser (Debian's chromium through Playwright) on a real
server (uvicorn, real store, real sandbox, scripted model): log in with the token, start a
review from the form, watch its events arrive in the DebugPanel, open the DiffViewer, approve
with a message, and find the file fixed on disk and the message in `.ai_context.json`.

Screenshots of the runs list, the DebugPanel and the DiffViewer are saved to
$CODELOOP_SCREENSHOTS_DIR (docs/serve.md's are made with it set to docs/screenshots), else to
the test's tmp dir."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from server_kit import (
    FIXED,
    REVIEW_SCRIPT,
    chromium_page,
    live_server,
    needs_chromium,
    review_workspace,
    write_script,
)

from codeloop.config import Settings
from codeloop.server.app import create_app

TOKEN = "browser-test-token-0123456789abcdef"

pytestmark = needs_chromium


def test_review_in_the_browser_debug_panel_diff_viewer_and_approval(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # the review's sandboxed test runs take seconds
    shots = Path(os.environ.get("CODELOOP_SCREENSHOTS_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="demo-"))  # a short path: it shows in the pictures
    ws = review_workspace(root, "calc-app")
    spec = write_script(root, REVIEW_SCRIPT, "review-script.yaml")
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], TOKEN,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    try:
        with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
            page.set_default_timeout(30_000)
            page.goto(f"{url}/")  # no token yet: the login form
            expect(page.locator("input[name=token]")).to_be_visible()
            page.goto(f"{url}/?token={TOKEN}")  # the cookie, then the app
            expect(page.locator("#runs-table")).to_be_visible()

            page.select_option("#start-job", "review")
            form = page.locator("#start-form")
            form.locator("input[name=workspace]").fill(str(ws))
            form.locator("textarea[name=request]").fill("")
            form.locator("input[name=files]").fill("calc.py")
            form.locator("button[type=submit]").click()
            page.wait_for_url("**/#/runs/review-*")
            run_id = page.url.rsplit("/", 1)[-1]

            page.click("#toggle-debug")
            panel = page.locator("#debug-panel")
            expect(panel).to_be_visible()
            expect(page.locator("#diff-viewer")).to_be_visible()
            lines = panel.locator(".debug-line")
            assert lines.count() >= 10
            nodes = set(panel.locator(".debug-line .node").all_inner_texts())
            assert {"reviewer", "refiner", "security_gate"} <= {n.split("/")[0] for n in nodes}
            assert panel.locator(".kind-llm").count() >= 2
            expect(page.locator("#debug-totals")).to_contain_text("total")
            page.select_option(".filter-node", "refiner")  # the filter keeps one node
            shown = panel.locator(".debug-line .node").all_inner_texts()
            assert shown and {n.split("/")[0] for n in shown} == {"refiner"}
            page.select_option(".filter-node", "")
            seen = page.evaluate("""() => ({
                kinds: [...document.querySelectorAll('#debug-log .debug-line .icon')]
                    .map((el) => el.title),
                options: [...document.querySelectorAll('#debug-panel .filter-type option')]
                    .map((o) => o.value)})""")  # one read: events may still be arriving
            # the type filter offers the kinds this run's events have, not a fixed list
            assert seen["kinds"]
            assert seen["options"][0] == "" and set(seen["options"][1:]) == set(seen["kinds"])
            assert len(seen["options"]) == len(set(seen["options"]))
            page.select_option(".filter-type", "llm")
            kinds = panel.locator(".debug-line .icon").evaluate_all(
                "els => els.map((el) => el.title)")
            assert kinds and set(kinds) == {"llm"}
            page.select_option(".filter-type", "")
            panel.screenshot(path=str(shots / "debug-panel.png"))

            viewer = page.locator("#diff-viewer")
            expect(viewer.locator(".diff-file .path")).to_have_text("calc.py")
            expect(viewer.locator("pre.unified .del")).to_contain_text("return a - b")
            expect(viewer.locator("pre.unified .add")).to_contain_text("return a + b")
            page.click("#diff-mode")  # side by side
            expect(viewer.locator("table.split td.del")).to_contain_text("return a - b")
            expect(viewer.locator("table.split td.add")).to_contain_text("return a + b")
            page.fill("#decision-message", "Approved in the browser")
            viewer.screenshot(path=str(shots / "diff-viewer.png"))
            assert (ws / "calc.py").read_text() != FIXED  # nothing written before approval

            page.click("#approve")
            expect(page.locator(".run-header .badge")).to_have_text("succeeded")
            expect(page.locator("#written-files")).to_contain_text("calc.py")

            page.goto(f"{url}/#/runs")
            expect(page.locator(f"tr[data-run-id='{run_id}'] .badge")).to_have_text("succeeded")
            page.screenshot(path=str(shots / "runs.png"))
            assert errors == []
            assert (ws / "calc.py").read_text() == FIXED
            history = json.loads((ws / ".ai_context.json").read_text())["workflow_history"]
            assert history[-1]["notes"] == "Approved in the browser"
            assert history[-1]["artifacts"] == ["calc.py"]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for name in ("runs.png", "debug-panel.png", "diff-viewer.png"):
        assert (shots / name).stat().st_size > 5_000
