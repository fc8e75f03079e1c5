"""The token rule, checked for every request before any route runs (a pure ASGI middleware,
so streams pass through untouched).

- With a token (always, unless the user says `--no-token`: the loopback is shared by every
  account of the machine): every API call carries it, as `Authorization: Bearer TOKEN` or
  as the `codeloop_token` cookie a browser gets by visiting `/?token=TOKEN` or the login
  form at /login (EventSource cannot send headers). The cookie is HttpOnly and
  SameSite=Strict, and kept 30 days (the token it holds lives in a file, made once).
  Without it: 401 JSON for the API and its docs, the login form for pages.
- Without a token (`--no-token`, loopback only): the Host header must name the loopback, so
  a web page cannot reach the API by pointing its own domain at 127.0.0.1 (DNS rebinding).
- Always: a state-changing request from a browser must come from the server's own origin
  (Origin / Sec-Fetch-Site), so another site's form or fetch cannot start or approve runs.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

COOKIE = "codeloop_token"
_PROTECTED_PREFIXES = ("/api/", "/docs", "/redoc", "/openapi.json")
_OPEN_PATHS = {"/login", "/favicon.ico", "/static/style.css"}  # the login page's
MAX_BODY_BYTES = 4 * 1024 * 1024  # no API body is larger (a build's task graph is the largest)
_UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def is_loopback(host: str) -> bool:
    """The one loopback rule: `codeloop serve` binds such an address without a token, and
    then answers only requests whose Host names one. `localhost` or a loopback IP literal
    (127.0.0.0/8, ::1, bracketed or not); any other name may resolve anywhere."""
    host = host.strip()
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def generate_token() -> str:
    return secrets.token_urlsafe(24)


def token_matches(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


def _headers(scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _host_name(host_header: str) -> str:
    if host_header.startswith("["):
        return host_header.split("]")[0] + "]"
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


COOKIE_SECONDS = 30 * 24 * 3600  # the browser keeps its login (Jupyter Server: 30 days)


def cookie_header(token: str) -> str:
    return f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={COOKIE_SECONDS}"


async def _send_json(send, status: int, error: str, detail: str,
                     extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": error, "detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length",
                                                        str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status,
                "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send, location: str, cookie: str | None = None) -> None:
    headers = [(b"location", location.encode()), (b"content-length", b"0")]
    if cookie:
        headers.append((b"set-cookie", cookie.encode()))
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


class TokenMiddleware:
    def __init__(self, app, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        path = scope.get("path", "")
        if self.token is None and not is_loopback(_host_name(headers.get("host", ""))):
            await _send_json(send, 403, "forbidden", "without a token this server answers "
                             "to loopback addresses and localhost only (start it with a "
                             "token to serve other names)")
            return
        if scope["method"] in _UNSAFE_METHODS and self._cross_site(headers):
            await _send_json(send, 403, "forbidden", "cross-site request refused")
            return
        length = headers.get("content-length", "")
        if length and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            await _send_json(send, 413, "too large", f"request bodies are limited to "
                             f"{MAX_BODY_BYTES} bytes")
            return
        if not length and "chunked" in headers.get("transfer-encoding", "").lower():
            await _send_json(send, 411, "length required", "send the body with a "
                             "Content-Length (no chunked bodies)")
            return
        if self.token is None or path in _OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if path == "/" and "token" in query:
            if token_matches(self.token, query["token"][0]):
                await _redirect(send, "/", cookie_header(self.token))
            else:
                await _redirect(send, "/login?failed=1")
            return
        if self._authenticated(headers):
            await self.app(scope, receive, send)
            return
        if path.startswith(_PROTECTED_PREFIXES) or path == "/api":
            await _send_json(send, 401, "unauthorized", "a token is required: send "
                             "'Authorization: Bearer TOKEN' (or log in at /login)",
                             [(b"www-authenticate", b"Bearer")])
            return
        await _redirect(send, "/login")

    def _authenticated(self, headers: dict[str, str]) -> bool:
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer " and token_matches(self.token, auth[7:].strip()):
            return True
        cookies = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except Exception:  # noqa: BLE001 - a malformed cookie header is no credential
            return False
        morsel = cookies.get(COOKIE)
        return morsel is not None and token_matches(self.token, morsel.value)

    @staticmethod
    def _cross_site(headers: dict[str, str]) -> bool:
        if headers.get("sec-fetch-site", "") == "cross-site":
            return True
        origin = headers.get("origin")
        if not origin or origin == "null":
            return origin == "null"
        return urlsplit(origin).netloc.lower() != headers.get("host", "").lower()
