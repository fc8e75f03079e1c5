"""The token never reaches a log: the real server (a subprocess) at `--log-level info` and
`debug` logs every request, and a browser's login by the printed link (`GET /?token=...`),
a wrong link, a login form post and API calls with the token leave it nowhere in the output
but the lines `codeloop serve` prints to hand it to the user. `trace` (uvicorn's level that
logs whole requests, cookies too) is refused in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import serve_process

from codeloop.cli import app as cli

TOKEN = "the-servers-token-0123456789-abcdefgh"
NEAR_MISS = "someone-elses-token-9876543210-zyx"  # a wrong token may be a real one elsewhere


def _handed_to_the_user(line: str) -> bool:
    return line.startswith(("token: ", "open http://"))


@pytest.mark.parametrize("level", ["info", "debug"])
def test_no_token_in_the_servers_log(tmp_path, level, monkeypatch):
    monkeypatch.setenv("CODELOOP_TOKEN", TOKEN)
    with serve_process(tmp_path, "--log-level", level, "--root", str(tmp_path), "--store",
                       str(tmp_path / "runs.sqlite"), "--model",
                       "scripted:/nonexistent.yaml") as server:
        with httpx.Client(base_url=server.url) as browser:
            assert browser.get(f"/?token={NEAR_MISS}").status_code == 303
            assert browser.get(f"/?x=1&token={NEAR_MISS}&y=2").status_code == 303
            assert browser.get(server.login_link(), follow_redirects=True).status_code == 200
            assert browser.get("/api/runs?token=" + TOKEN).status_code == 200
            assert browser.get(f"/api/runs/missing-{TOKEN}").status_code == 404
            assert browser.post("/login", content=f"token={TOKEN}", headers={
                "content-type": "application/x-www-form-urlencoded"}).status_code == 303
        assert httpx.get(f"{server.url}/api/info",
                         headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    output = server.output()
    assert '"GET /?token=' in output and "/api/info" in output  # requests were logged
    for secret in (TOKEN, NEAR_MISS):
        leaks = [line for line in output.splitlines()
                 if secret in line and not _handed_to_the_user(line)]
        assert leaks == [], leaks
    assert sum(TOKEN in line for line in output.splitlines()) == 2  # the two printed lines


def test_the_trace_level_is_refused(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--log-level", "trace", "--root",
                                      str(tmp_path), "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 2 and "--log-level" in result.output
    assert not (tmp_path / "s.sqlite").exists()
