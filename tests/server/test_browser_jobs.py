"""The solve and build views in a real browser (chromium) on a real server: a solve started
from the form shows its stages, the verdict, the code and the metrics; a build shows its
progress bar, its tasks by dependency level and its files, one opened as text."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from server_kit import ADD, chromium_page, live_server, needs_chromium, write_script
from test_api_build import EXAMPLE

from codeloop.config import Settings
from codeloop.server.app import create_app
from codeloop.server.auth import generate_token

pytestmark = needs_chromium


def test_solve_and_build_views(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    shots = Path(os.environ.get("CODELOOP_SCREENSHOTS_DIR") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    root = tmp_path / "root"
    root.mkdir()
    spec = write_script(root, [ADD], "default.yaml")
    shutil.copy(EXAMPLE / "scripted.yaml", root / "todo-script.yaml")
    token = generate_token()  # `codeloop serve` always asks one
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], token,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/?token={token}")  # the printed login link: the cookie, the app
        page.select_option("#start-job", "solve")
        form = page.locator("#start-form")  # empty fields: the task is typed in
        form.locator("input[name=task_id]").fill("add")
        form.locator("input[name=signature]").fill("def add(a, b)")
        form.locator("textarea[name=docstring]").fill("Return the sum of a and b.")
        form.locator("textarea[name=examples]").fill("add(1, 2) == 3")
        form.locator("button[type=submit]").click()
        page.wait_for_url("**/#/runs/solve-*")
        expect(page.locator("#solve-verdict")).to_contain_text("Code is correct")
        expect(page.locator("#solve-stages li.done")).to_contain_text(["generation", "review"])
        expect(page.locator("#solve-code")).to_contain_text("return a + b")
        assert page.locator("#solve-metrics tr").count() >= 3
        page.locator("#solve-view").screenshot(path=str(shots / "solve.png"))

        request = json.loads((EXAMPLE / "tasks.json").read_text())
        started = page.request.post(f"{url}/api/codegen/projects/todo/generate", data={
            "request": request, "model": f"scripted:{root / 'todo-script.yaml'}"})
        assert started.status == 202, started.text()
        page.goto(f"{url}/#/runs/{started.json()['run_id']}")
        view = page.locator("#build-view")
        expect(view.locator("h3").first).to_contain_text("COMPLETE · 100%")
        levels = view.locator("#build-levels .level")
        assert levels.count() == 3
        for index, task in enumerate(("T1", "T2", "T3")):
            expect(levels.nth(index).locator(f"[data-task={task}] .badge")).to_have_text(
                "completed")
        view.locator("#build-files a", has_text="app/models.py").click()
        expect(page.locator("#build-file")).to_contain_text("class TodoIn")
        view.screenshot(path=str(shots / "build.png"))
    assert errors == []
