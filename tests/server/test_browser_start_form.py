"""The start form in a real browser (Debian's chromium): no field holds a value a click could
send (the audit's one click started an agent on the server's root); every field is empty
with a placeholder, and submitting it empty shows the browser's validation message on a
required field and sends nothing: no POST, no run."""

from __future__ import annotations

from server_kit import chromium_page, live_server, needs_chromium, write_script

from codeloop.config import Settings
from codeloop.server.app import create_app

TOKEN = "start-form-test-token-0123456789ab"

pytestmark = needs_chromium


def test_the_start_form_is_empty_with_placeholders_and_refuses_an_empty_submit(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    root = tmp_path / "root"
    root.mkdir()
    (root / "notes.txt").write_text("a file of the user's\n")
    spec = write_script(root, ["unused"], "default.yaml")
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], TOKEN,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    posts: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.set_default_timeout(30_000)
        page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
        page.goto(f"{url}/?token={TOKEN}")
        expect(page.locator("#runs-table")).to_be_visible()
        form = page.locator("#start-form")
        jobs = page.locator("#start-job option").evaluate_all("os => os.map(o => o.value)")
        assert {"solve", "agent", "review", "build"} <= set(jobs)
        for job in jobs:
            page.select_option("#start-job", job)
            fields = form.locator(".fields input:not([type=checkbox]), .fields textarea")
            assert fields.count() >= 2, job
            for index in range(fields.count()):
                field = fields.nth(index)
                name = field.get_attribute("name")
                assert field.input_value() == "", (job, name)
                assert (field.get_attribute("placeholder") or "").strip(), (job, name)
            assert form.locator(".fields [required]").count() >= 1, job
            for box in form.locator(".fields input[type=checkbox]").all():
                assert not box.is_checked(), (job, box.get_attribute("name"))

            form.locator("button[type=submit]").click()
            invalid = form.locator(":invalid:not(form)").first
            assert invalid.evaluate("el => el.validationMessage"), job
            assert not form.evaluate("f => f.checkValidity()"), job
        page.wait_for_timeout(500)  # a POST the click sent would be on its way by now
    assert posts == []
    assert errors == []
    assert not (root / ".git").exists()
    from codeloop.store import RunStore

    with RunStore(tmp_path / "runs.sqlite") as store:
        assert store.count_runs() == 0
