"""/docs: the API's Swagger UI, served whole by the server, under the web UI's CSP.

FastAPI's own /docs and /redoc load unpinned scripts from a CDN with no integrity check: a
script that runs with the server's origin and the user's cookie. Here Swagger UI's release
files come from the `fastapi-offline` package (it ships them, and is kept to Swagger UI's
releases); the page and its start script are the package's own, so the page holds no inline
script, loads nothing from another origin, and works offline. ReDoc is off: its bundle
injects inline styles, which the CSP forbids, and one reference page is enough.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, HTTPException
from fastapi.responses import HTMLResponse, Response

from codeloop.server.routes_ui import PAGE_HEADERS, STATIC

router = APIRouter(include_in_schema=False)

_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>codeloop API</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script></body></html>"""

_SWAGGER = "fastapi_offline"  # the package whose static/ holds Swagger UI's files
_ASSETS = {  # the only files served under /docs/: name -> (package, file, type)
    "swagger-ui-bundle.js": (_SWAGGER, "swagger-ui-bundle.js", "text/javascript"),
    "swagger-ui.css": (_SWAGGER, "swagger-ui.css", "text/css"),
    "start.js": (None, "docs_start.js", "text/javascript"),
}


@router.get("/docs")
def docs() -> Response:
    return HTMLResponse(_PAGE, headers=PAGE_HEADERS)


@router.get("/docs/{name}")
def docs_asset(name: str) -> Response:
    if name not in _ASSETS:
        raise HTTPException(404, f"no docs file {name[:60]!r}")
    package, file_name, media_type = _ASSETS[name]
    where = STATIC if package is None else resources.files(package) / "static"
    return Response((where / file_name).read_bytes(), media_type=media_type,
                    headers={"X-Content-Type-Options": "nosniff",
                             "Cache-Control": "no-cache"})
