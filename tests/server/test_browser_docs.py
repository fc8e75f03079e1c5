"""/docs in a real browser (Debian's chromium) on a real server: Swagger UI renders the
API's operations under the page's CSP with no violation or error, and every request the page
makes goes to the server itself (no CDN, no validator badge)."""

from __future__ import annotations

from server_kit import chromium_page, live_server, needs_chromium, write_script

from codeloop.config import Settings
from codeloop.server.app import create_app
from codeloop.server.auth import generate_token

pytestmark = needs_chromium


def test_swagger_ui_works_offline_under_the_csp(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    token = generate_token()
    app = create_app(Settings(model=write_script(tmp_path, [])), [tmp_path], token,
                     tmp_path / "runs.sqlite")
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{url}/?token={token}")
        page.goto(f"{url}/docs")
        expect(page.locator(".opblock-summary-path", has_text="/api/runs").first
               ).to_be_visible(timeout=30_000)
        assert page.locator(".opblock").count() >= 12
        page.wait_for_load_state("networkidle")
    assert errors == []
    assert requested and all(u.startswith(url) for u in requested), requested
