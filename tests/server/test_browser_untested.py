"""A solve run that ran no test is not shown as a pass in the web UI: its run view says
"Code is untested" (not in the pass style) and why, in a real browser on a real server."""

from __future__ import annotations

from server_kit import ADD, chromium_page, live_server, needs_chromium, write_script

from codeloop.config import Settings
from codeloop.server.app import create_app

pytestmark = needs_chromium

# The examples call `plus`, not `add`: none of them can test the code.
STRAY_TASK = {"task_id": "add", "signature": "def add(a, b)", "docstring": "Sum.",
              "examples": "plus(1, 2) == 3\nplus(0, 0) == 0"}


def test_the_run_view_shows_an_untested_verdict_and_its_reason(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    root = tmp_path / "root"
    root.mkdir()
    spec = write_script(root, [ADD], "default.yaml")
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], None,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/")
        started = page.request.post(f"{url}/api/runs",
                                    data={"job": "solve", "params": {"task": STRAY_TASK}})
        assert started.status == 202, started.text()
        page.goto(f"{url}/#/runs/{started.json()['run_id']}")
        verdict = page.locator("#solve-verdict")
        expect(verdict).to_contain_text("Code is untested")
        expect(verdict).to_have_class("verdict untested")
        expect(page.locator("#solve-untested")).to_contain_text(
            "no example calls add; 2 examples dropped: `plus(1, 2) == 3`")
        assert "Code is correct" not in page.locator("#solve-view").inner_text()
    assert errors == []
