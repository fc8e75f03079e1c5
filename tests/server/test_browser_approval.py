"""The DiffViewer in a real browser (Debian's chromium through Playwright) shows every hidden
character of a diff as a visible marker, never raw (issue 50, item 3: a Trojan Source `.js`
diff read as an admin check while `return true` ran for everyone), and its Approve button
sends the digest of the diffs it shows: the exact bytes are written."""

from __future__ import annotations

import pytest
from server_kit import chromium_page, live_server, needs_chromium

from codeloop.config import Settings
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review
from codeloop.server.app import create_app
from codeloop.store import RunStore

TOKEN = "browser-approval-token-0123456789abcdef"
TROJAN_JS = ("function isAdmin(user) {\n"
             "    /*\u202e } \u2066if (user.role != 'admin')\u2069 \u2066 begin admins only */\n"
             "    return true;\n"
             "}\n")
# the refiner takes the overrides out, and adds a line holding a zero-width space and a
# right-to-left mark (neither blocks the review): the person must still see both
ADDED = 'const greeting = "hi\u200bthere\u200f";'
FIX = (f"app.js\n<<<<<<< SEARCH\n{TROJAN_JS.splitlines()[1]}\n=======\n"
       "    /* admins only */\n    if (user.role != 'admin') return false;\n"
       f"{ADDED}\n>>>>>>> REPLACE\n")
APPROVE = {"json": {"approved": True, "issues": [], "suggestions": []}}

pytestmark = [needs_chromium, pytest.mark.attack]


def test_the_diff_viewer_marks_hidden_characters_and_approves_the_exact_bytes(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.js").write_text(TROJAN_JS)
    store_path = tmp_path / "runs.sqlite"
    with RunStore(store_path) as store:
        out = start_review(ReviewRequest(workspace=ws, files=["app.js"]),
                           ScriptedLLM([APPROVE, FIX, APPROVE]), store)
    assert out.status == "awaiting_approval", out.message
    written = out.pending_diffs[0]["modified_content"]
    assert ADDED in written
    app = create_app(Settings(model="scripted:none", sandbox_timeout=20), [tmp_path], TOKEN,
                     store_path)
    errors: list[str] = []
    with live_server(app) as url, sync_playwright() as pw, chromium_page(pw, errors) as page:
        page.set_default_timeout(30_000)
        page.goto(f"{url}/?token={TOKEN}")
        page.goto(f"{url}/#/runs/{out.run_id}")
        viewer = page.locator("#diff-viewer")
        expect(viewer.locator(".diff-file .path")).to_have_text("app.js")
        removed = viewer.locator("pre.unified span.del").filter(has_text="admins only")
        expect(removed).to_contain_text("/*⟪U+202E⟫ } ⟪U+2066⟫if (user.role != 'admin')"
                                        "⟪U+2069⟫ ⟪U+2066⟫ begin admins only */")
        added = viewer.locator("pre.unified span.add").filter(has_text="greeting")
        expect(added).to_contain_text('const greeting = "hi⟪U+200B⟫there⟪U+200F⟫";')
        expect(added.locator(".hidden-char")).to_have_count(2)
        shown = viewer.locator("pre.unified").text_content()
        for char in "\u202e\u2066\u2069\u200b\u200f":
            assert char not in shown, f"U+{ord(char):04X} drawn raw"
        page.click("#diff-mode")  # side by side: the same markers
        expect(viewer.locator("table.split td.del .hidden-char").first).to_have_text(
            "⟪U+202E⟫")
        expect(viewer.locator("table.split td.add .hidden-char")).to_have_count(2)
        page.fill("#decision-message", "seen, markers and all")
        page.click("#approve")
        expect(page.locator(".run-header .badge")).to_have_text("succeeded")
        assert errors == []
    assert (ws / "app.js").read_text() == written  # the bytes shown, zero-width and all
