"""The runs list in a real browser speaks the one status set: its filter offers exactly the
set's words (in people's words), a build with blocked tasks is shown failed with its outcome
(never succeeded), and filtering by a status asks the server for that word."""

from __future__ import annotations

from server_kit import ADD, chromium_page, live_server, needs_chromium, write_script

from codeloop.config import Settings
from codeloop.server.app import create_app
from codeloop.store import RunStore

pytestmark = needs_chromium

BLOCKED_BUILD = {"status": "COMPLETE", "total_tasks": 5, "completed_tasks": ["T1", "T2", "T3"],
                 "blocked_tasks": ["T4", "T5"], "failed_tasks": {}}


def test_the_status_filter_offers_the_set_and_a_blocked_build_is_not_succeeded(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)
    root = tmp_path / "root"
    root.mkdir()
    store = tmp_path / "runs.sqlite"
    with RunStore(store) as runs:
        with runs.run("build", {"out_dir": str(root / "todo"), "model": "scripted:b.yaml",
                                "request": {"tasks": [{"id": "T1",
                                                       "description": "A todo API"}]}}) as b:
            b.finish("complete", BLOCKED_BUILD)
        with runs.run("solve", {"task": {"task_id": "add", "signature": "def add(a, b)"},
                                "model": "scripted:s.yaml"}) as s:
            s.finish("passed", {})
    spec = write_script(root, [ADD], "default.yaml")
    app = create_app(Settings(model=spec), [root], None, store)
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/")
        build_row = page.locator(f'tr[data-run-id="{b.id}"]')
        expect(build_row.locator("td.status")).to_contain_text(
            "failed3 of 5 tasks merged, 2 blocked")
        expect(build_row.locator(".badge")).to_have_text("failed")
        expect(build_row.locator("td.asked")).to_contain_text("1 task(s): A todo API")
        expect(build_row.locator("td.model")).to_have_text("scripted:b.yaml")
        solve_row = page.locator(f'tr[data-run-id="{s.id}"]')
        expect(solve_row.locator(".badge")).to_have_text("succeeded")
        expect(solve_row.locator(".outcome")).to_have_text("tests passed")

        status_filter = page.locator(".toolbar select").nth(1)
        options = status_filter.locator("option")
        assert options.evaluate_all("os => os.map(o => o.value)") == [
            "", "queued", "running", "awaiting_approval", "succeeded", "failed", "cancelled",
            "interrupted"]
        expect(options.nth(3)).to_have_text("awaiting approval")
        status_filter.select_option("succeeded")
        expect(page.locator("tr.run-row")).to_have_count(1)
        expect(page.locator(f'tr[data-run-id="{s.id}"]')).to_be_visible()
        status_filter.select_option("failed")
        expect(page.locator("tr.run-row")).to_have_count(1)
        expect(page.locator(f'tr[data-run-id="{b.id}"]')).to_be_visible()
    assert errors == []
