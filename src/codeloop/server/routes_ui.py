"""The web UI's pages (the app shell, the login form) and the facts it starts from."""

from __future__ import annotations

from importlib import resources
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel

from codeloop.server.auth import cookie_header, token_matches
from codeloop.server.errors import ERROR_RESPONSES

router = APIRouter()
STATIC = resources.files("codeloop.server") / "static"

_LOGIN = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>codeloop: log in</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/static/style.css"></head>
<body class="login"><form method="post" action="/login" class="card">
<h1>codeloop</h1><p>This server needs its token (printed by <code>codeloop serve</code>).</p>
{failed}<label>Token <input type="password" name="token" autofocus required></label>
<button type="submit">Log in</button></form></body></html>"""


class ServerInfo(BaseModel):
    version: str
    model: str
    roots: list[str]
    jobs: list[str]
    auth: bool


# The pages load only the package's own files: no inline script, nothing from elsewhere,
# not framed by another site.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
}


def _login_page(failed: bool, status: int = 200) -> HTMLResponse:
    note = '<p class="error">That token is not right.</p>' if failed else ""
    return HTMLResponse(_LOGIN.format(failed=note), status_code=status, headers=PAGE_HEADERS)


@router.get("/", include_in_schema=False)
def index() -> Response:
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"),
                        headers=PAGE_HEADERS)


@router.get("/login", include_in_schema=False)
def login_form(failed: str | None = None) -> Response:
    return _login_page(bool(failed))


@router.post("/login", include_in_schema=False)
async def login(request: Request) -> Response:
    token = request.app.state.server.token
    body = (await request.body())[:4096].decode("utf-8", "replace")
    given = (parse_qs(body).get("token") or [""])[0]
    if token is None:
        return RedirectResponse("/", status_code=303)
    if not token_matches(token, given):
        return _login_page(True, status=401)
    response = RedirectResponse("/", status_code=303)
    response.headers["set-cookie"] = cookie_header(token)
    return response


@router.get("/api/info", response_model=ServerInfo, responses=ERROR_RESPONSES,
            summary="The server's model, roots and jobs")
def info(request: Request) -> ServerInfo:
    from codeloop import __version__
    from codeloop.server.job_runners import LAUNCHERS

    server = request.app.state.server
    return ServerInfo(version=__version__, model=server.settings.model,
                      roots=server.roots.describe(), jobs=sorted(LAUNCHERS),
                      auth=server.token is not None)

