"""The web UI's rough edges, fixed, in a real browser (Debian's chromium) on a real server
(real store, real sandbox, scripted model); screenshots kept as the other browser tests do:

- a run's header never prints "null" or "undefined", also before the first model call;
- the solve page lists the failures and the warnings the CLI lists, and an untested answer's
  status is not drawn as a success;
- the review page shows the reviewer's verdict and the tests after and before the change;
- the DebugPanel, opened, scrolls into view, and a long prompt unfolds whole;
- a build's blocked tasks are shown as blocked, not failed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from server_kit import (
    ADD,
    REVIEW_SCRIPT,
    chromium_page,
    live_server,
    needs_chromium,
    review_workspace,
    write_script,
)

from codeloop.config import Settings
from codeloop.server.app import create_app
from codeloop.server.auth import generate_token

pytestmark = needs_chromium
WRONG = "```python\ndef add(a, b):\n    return a - b\n```"


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("CODELOOP_SCREENSHOTS_DIR") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _app(tmp_path: Path, root: Path, spec: str):
    token = generate_token()
    return create_app(Settings(model=spec, sandbox_timeout=20), [root], token,
                      tmp_path / "runs.sqlite"), token


def _post(page, url: str, job: str, params: dict) -> str:
    started = page.request.post(f"{url}/api/runs", data={"job": job, "params": params})
    assert started.status == 202, started.text()
    return started.json()["run_id"]


def _header_text(page) -> str:
    return page.locator(".run-header").inner_text()


def test_solve_page_header_failures_warnings_and_untested(tmp_path, shots):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)
    root = tmp_path / "root"
    root.mkdir()
    spec = write_script(root, [ADD], "default.yaml")
    # Every reply of this model takes 3 s: the page is read before the first call ends.
    slow = write_script(root, {"replies": [ADD], "delay_seconds": 3}, "slow.yaml")
    failing = write_script(root, [WRONG] * 8, "wrong.yaml")
    app, token = _app(tmp_path, root, spec)
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/?token={token}")
        expect(page.locator("#runs-table")).to_be_visible()

        # Before the first model call: nothing the run lacks yet is printed as null.
        task = {"task_id": "add", "signature": "def add(a, b)", "docstring": "Sum.",
                "examples": "add(1, 2) == 3\nplus(0, 0) == 0"}  # one example can test
        run_id = _post(page, url, "solve", {"task": task, "model": slow})
        page.goto(f"{url}/#/runs/{run_id}")
        expect(page.locator("#run-status")).to_be_visible()
        early = _header_text(page)
        assert page.locator(".kind-llm").count() == 0  # no model call has ended yet
        assert "null" not in early and "undefined" not in early, early
        page.locator(".run-header").screenshot(path=str(shots / "run-header-early.png"))
        # It passes; the dropped example is a warning, listed as the CLI lists it.
        expect(page.locator("#solve-verdict")).to_have_class("verdict pass")
        expect(page.locator("#solve-verdict")).to_contain_text("1/1 tests passed")
        expect(page.locator("#solve-notes li.warning")).to_contain_text("plus(0, 0) == 0")
        assert "null" not in _header_text(page)

        # A failing answer: its failures are listed, in the failure style.
        run_id = _post(page, url, "solve", {"task": {**task, "examples": "add(1, 2) == 3"},
                                            "model": failing, "max_refinements": 0})
        page.goto(f"{url}/#/runs/{run_id}")
        expect(page.locator("#solve-verdict")).to_have_class("verdict fail")
        expect(page.locator("#solve-notes li.issue").first).to_contain_text("add(1, 2)")
        assert "null" not in page.locator("#solve-view").inner_text()  # metrics it lacks
        page.locator("#solve-view").screenshot(path=str(shots / "solve-failures.png"))

        # An untested answer: its status badge is not the success style.
        stray = {**task, "examples": "plus(1, 2) == 3"}
        run_id = _post(page, url, "solve", {"task": stray})
        page.goto(f"{url}/#/runs/{run_id}")
        expect(page.locator("#solve-verdict")).to_have_class("verdict untested")
        expect(page.locator("#run-status")).to_have_class("badge status-caveat")
        color = page.locator("#run-status").evaluate("el => getComputedStyle(el).color")
        assert color != page.evaluate("""() => { const probe = document.createElement('span');
            probe.className = 'badge status-succeeded'; document.body.append(probe);
            return getComputedStyle(probe).color; }""")
    assert errors == []


def test_review_page_verdict_and_the_debug_panel(tmp_path, shots):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)
    root = tmp_path / "root"
    root.mkdir()
    ws = review_workspace(root, "calc-app")
    spec = write_script(root, REVIEW_SCRIPT, "review-script.yaml")
    app, token = _app(tmp_path, root, spec)
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/?token={token}")
        run_id = _post(page, url, "review", {"workspace": str(ws), "files": ["calc.py"]})
        page.goto(f"{url}/#/runs/{run_id}")
        expect(page.locator("#diff-viewer")).to_be_visible()
        verdict = page.locator("#review-verdict")
        expect(verdict.locator("#reviewer-verdict")).to_have_text("approved")
        expect(verdict.locator("#review-tests")).to_contain_text("1 passed, 0 failed")
        expect(verdict.locator("#review-tests")).to_contain_text("(before: 0 passed, 1 failed)")
        assert "null" not in _header_text(page)
        verdict.screenshot(path=str(shots / "review-verdict.png"))

        page.evaluate("window.scrollTo(0, 0)")
        panel = page.locator("#debug-panel")
        page.click("#toggle-debug")
        expect(panel).to_be_in_viewport()  # it was below the fold
        top = panel.evaluate("el => el.getBoundingClientRect().top")
        assert 0 <= top < 200, top
        long_line = panel.locator(".debug-line:has(button.expand)").first
        expect(long_line).to_be_visible()
        text = long_line.locator(".text")
        shown, whole = text.evaluate("el => [el.clientHeight, el.scrollHeight]")
        assert shown < whole  # clipped ...
        long_line.locator("button.expand").click()
        expect(long_line.locator("button.expand")).to_have_text("less")
        shown, whole = text.evaluate("el => [el.clientHeight, el.scrollHeight]")
        assert shown >= whole  # ... and unfolded whole
        long_line.screenshot(path=str(shots / "debug-panel-expanded.png"))
        long_line.locator("button.expand").click()
        assert text.evaluate("el => el.clientHeight < el.scrollHeight")
    assert errors == []


def test_blocked_build_tasks_are_shown_blocked(tmp_path, shots):
    from playwright.sync_api import expect, sync_playwright

    sys.path.insert(0, str(Path(__file__).parents[1] / "build"))
    from build_replies import func_task, task_script, tasks

    from codeloop.build.models import scripted_agents
    from codeloop.build.runner import BuildOptions, execute, prepare
    from codeloop.build.runtime import BuildRuntime
    from codeloop.store import RunStore

    expect.set_options(timeout=60_000)
    root = tmp_path / "root"
    root.mkdir()
    wrong_test = "from app.a import a\n\n\ndef test_a():\n    assert a() == 42\n"
    agents = {"task:A": task_script("tests/test_a.py", wrong_test, "app/a.py",
                                    "def a():\n    return 1\n"),
              "task:D": func_task("d", "4")}
    inputs = prepare(tasks(("A",), ("B", "A"), ("D",)), out_dir=root / "proj",
                     options=BuildOptions(max_parallel=2, retries=0, fix_rounds=0))
    runtime = BuildRuntime(llm_for=scripted_agents(agents), sleep=lambda _s: None)
    with (RunStore(tmp_path / "runs.sqlite") as store,  # the build, as the CLI runs it
          store.run("build", inputs.record()) as handle):
        final = execute(inputs, handle, store, runtime)
        run_id = handle.id
    assert final["blocked_tasks"] == ["A", "B"] and final["completed_tasks"] == ["D"]
    app, token = _app(tmp_path, root, write_script(root, ["unused"], "default.yaml"))
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.goto(f"{url}/?token={token}")
        page.goto(f"{url}/#/runs/{run_id}")
        view = page.locator("#build-view")
        for task, state in (("A", "blocked"), ("B", "blocked"), ("D", "completed")):
            expect(view.locator(f"[data-task={task}] .badge")).to_have_text(state)
        expect(view.locator("[data-task=B] .why-blocked")).to_contain_text("depends on A")
        assert view.locator(".badge.status-failed").count() == 0
        expect(view.locator("h3").first).to_contain_text("1/3 tasks · 2 blocked")
        view.screenshot(path=str(shots / "build-blocked.png"))
    assert errors == []
