"""The API's docs page loads nothing from another origin and runs under the UI's CSP: its
Swagger UI script and stylesheet are the package's own files (a CDN's unpinned script, with no
integrity check, ran with the server's origin and the user's cookie). ReDoc is off. The docs
are behind the token like the rest of the API. (In a browser: tests/server/test_browser_docs.)"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import served

from codeloop.server.routes_ui import PAGE_HEADERS

_REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)


def test_the_docs_page_is_served_whole_by_the_server_under_the_uis_csp(tmp_path):
    with served(tmp_path) as client:
        page = client.get("/docs")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["content-security-policy"] == \
            PAGE_HEADERS["Content-Security-Policy"]
        assert page.headers["x-frame-options"] == "DENY"
        assert "://" not in page.text and "<script>" not in page.text.replace(" ", "")
        references = [r for r in _REFERENCE.findall(page.text) if r != "data:,"]  # no icon
        assert any(r.endswith(".js") for r in references)
        assert any(r.endswith(".css") for r in references)
        for reference in references:  # own origin only, each one there
            assert reference.startswith("/") and not reference.startswith("//"), reference
            asset = client.get(reference)
            assert asset.status_code == 200 and len(asset.content) > 100, reference
            assert asset.headers["x-content-type-options"] == "nosniff"
        assert "SwaggerUIBundle" in client.get(
            next(r for r in references if "bundle" in r)).text
        assert client.get("/redoc").status_code == 404
        assert client.get("/docs/oauth2-redirect").status_code == 404
        assert client.get("/docs/../pyproject.toml").status_code == 404
        client.cookies.clear()  # not logged in: the docs and their files are the API's
        for reference in ["/docs", *references]:
            assert client.get(reference, follow_redirects=False).status_code in (401, 303)
