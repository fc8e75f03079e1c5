"""The server's token rule and request-origin rules, attacked: every API route refuses a
missing or wrong token (header and cookie), the browser's cookie comes only from the right
token, a loopback server without a token answers to loopback host names only (DNS
rebinding), and no other site can make a browser start or approve runs (CSRF)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import ADD_TASK, served, start, wait_status

TOKEN = "s3cret-token-for-the-tests-0123456789"
GOOD = {"Authorization": f"Bearer {TOKEN}"}


def _api_calls(client, run_id: str) -> list[tuple[str, str]]:
    """Every operation the OpenAPI document lists (read with the token), and the docs."""
    paths = client.get("/openapi.json", headers=GOOD).json()["paths"]
    calls = [(method.upper(), path.replace("{run_id}", run_id))
             for path, operations in paths.items() for method in operations]
    return calls + [("GET", "/openapi.json"), ("GET", "/docs"), ("GET", "/redoc")]


def test_every_api_route_refuses_a_missing_or_wrong_token(tmp_path):
    with served(tmp_path, token=TOKEN) as client:
        run_id = start(client, "solve", {"task": ADD_TASK}, headers=GOOD)
        wait_status(client, run_id, {"succeeded"}, headers=GOOD)
        calls = _api_calls(client, run_id)
        assert len(calls) >= 12
        wrong_headers = [{}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN},
                         {"Authorization": f"Bearer {TOKEN[:-1]}"},
                         {"Cookie": "codeloop_token=nope"}, {"Cookie": "codeloop_token"}]
        for method, path in calls:
            for headers in wrong_headers:
                answer = client.request(method, path, headers=headers, json={})
                assert answer.status_code == 401, (method, path, headers, answer.text)
                assert answer.json()["error"] == "unauthorized"
        assert client.get("/api/runs").status_code == 401
        assert client.get("/api/runs", headers=GOOD).json()["total"] == 1
        # nothing was changed by the refused calls
        assert client.get(f"/api/runs/{run_id}", headers=GOOD).json()["status"] == "succeeded"


def test_the_browser_cookie_comes_only_from_the_right_token(tmp_path):
    with served(tmp_path, token=TOKEN) as client:
        page = client.get("/", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login"
        assert client.get("/static/app.js", follow_redirects=False).status_code == 303
        wrong = client.get("/?token=nope", follow_redirects=False)
        assert wrong.status_code == 303 and "set-cookie" not in wrong.headers
        refused = client.post("/login", content="token=nope",
                              headers={"content-type": "application/x-www-form-urlencoded"})
        assert refused.status_code == 401 and "set-cookie" not in refused.headers
        assert client.get("/api/runs").status_code == 401
        right = client.get(f"/?token={TOKEN}", follow_redirects=False)
        assert right.status_code == 303 and right.headers["location"] == "/"
        cookie = right.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert client.get("/api/runs").status_code == 200  # the client keeps the cookie
        client.cookies.clear()
        form = client.post("/login", content=f"token={TOKEN}", follow_redirects=False,
                           headers={"content-type": "application/x-www-form-urlencoded"})
        assert form.status_code == 303 and "codeloop_token=" in form.headers["set-cookie"]
        assert client.get("/").status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.nip.io",
                                  "10.0.0.5", ""])
def test_a_server_without_token_answers_to_loopback_names_only(tmp_path, host):
    with served(tmp_path, token=None) as client:  # codeloop serve --no-token
        answer = client.get("/api/runs", headers={"host": host})
        assert answer.status_code == 403 and answer.json()["error"] == "forbidden"
        for ok in ("127.0.0.1:8765", "localhost", "[::1]:8765"):
            assert client.get("/api/runs", headers={"host": ok}).status_code == 200


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"},
                                     {"Origin": "null"},
                                     {"Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "http://127.0.0.1:9999"}])
def test_no_other_site_can_start_or_decide_runs(tmp_path, headers):
    with served(tmp_path, token=TOKEN) as client:
        client.get(f"/?token={TOKEN}")  # a logged-in browser: the cookie is sent
        answer = client.post("/api/runs", json={"job": "solve", "params": {"task": ADD_TASK}},
                             headers=headers)
        assert answer.status_code == 403 and answer.json()["detail"].startswith("cross-site")
        assert client.post("/api/runs/x/approve", json={}, headers=headers).status_code == 403
        assert client.delete("/api/runs/x", headers=headers).status_code == 403
        assert client.get("/api/runs").json()["total"] == 0
        same = client.post("/api/runs", json={"job": "solve", "params": {"task": ADD_TASK}},
                           headers={"Origin": "http://127.0.0.1", "Sec-Fetch-Site":
                                    "same-origin"})
        assert same.status_code == 202
        wait_status(client, same.json()["run_id"], {"succeeded"})


def test_oversized_or_unsized_bodies_are_refused_and_pages_forbid_framing(tmp_path):
    with served(tmp_path) as client:
        huge = client.post("/api/runs", content=b"{" + b" " * (5 * 1024 * 1024) + b"}",
                           headers={"content-type": "application/json"})
        assert huge.status_code == 413 and huge.json()["error"] == "too large"

        def chunks():
            yield b'{"job": "solve", '
            yield b'"params": {}}'

        chunked = client.post("/api/runs", content=chunks(),
                              headers={"content-type": "application/json"})
        assert chunked.status_code == 411
        assert client.get("/api/runs").json()["total"] == 0
        page = client.get("/")
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"
