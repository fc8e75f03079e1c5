"""Another account on the machine, attacking `codeloop serve` on the loopback: the server
asks a token there too (Jupyter Server's rule), made on the first start into a 0600 file in
the user's config directory and reused after; the login link is printed; an API call with
no token or a wrong one is a 401. A token file someone else could read or swap (not 0600,
a symlink, another owner, a group-writable directory) is refused, not used. No token at all
is the user's explicit choice (`--no-token`), warned about, and loopback only."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import serve_process

from codeloop.cli import app as cli
from codeloop.paths import config_dir


def _args(tmp_path: Path) -> list[str]:
    return ["--root", str(tmp_path), "--store", str(tmp_path / "runs.sqlite"), "--model",
            "scripted:/nonexistent.yaml"]


def _token_file() -> Path:
    return config_dir() / "server-token"


def test_loopback_asks_a_token_made_once_into_a_private_file(tmp_path):
    with serve_process(tmp_path, *_args(tmp_path)) as server:
        link, token = server.login_link(), server.token()
        assert link == f"{server.url}/?token={token}"
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"},
                        {"Authorization": f"Bearer {token[:-1]}"},
                        {"Cookie": "codeloop_token=wrong"}):
            for method, path in (("GET", "/api/runs"), ("GET", "/api/info"),
                                 ("POST", "/api/runs"), ("POST", "/api/runs/x/approve"),
                                 ("DELETE", "/api/runs/x"), ("GET", "/openapi.json")):
                answer = httpx.request(method, f"{server.url}{path}", headers=headers,
                                       json={})
                assert answer.status_code == 401, (method, path, headers, answer.text)
        assert httpx.get(f"{server.url}/").status_code == 303  # the page: to the login form
        ok = httpx.get(f"{server.url}/api/runs", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200
        with httpx.Client() as browser:  # the printed link logs a browser in
            first = browser.get(link)
            assert first.status_code == 303
            cookie = first.headers["set-cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
            assert "Max-Age=2592000" in cookie  # the browser keeps its login (30 days)
            assert browser.get(f"{server.url}/", follow_redirects=True).status_code == 200
            assert browser.get(f"{server.url}/api/runs").status_code == 200
    kept = _token_file()
    info = kept.lstat()
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_uid == os.geteuid() and kept.read_text().strip() == token
    with serve_process(tmp_path, *_args(tmp_path)) as again:  # a second start reuses it
        assert again.token() == token
        assert httpx.get(f"{again.url}/api/runs",
                         headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert kept.lstat().st_ino == info.st_ino and kept.lstat().st_mtime == info.st_mtime


def _refused(tmp_path: Path, why: str) -> None:
    result = CliRunner().invoke(cli, ["serve", *_args(tmp_path)])
    assert result.exit_code == 2, result.output
    assert why in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "runs.sqlite").exists()  # nothing started


def _plant(content: str = "a-planted-token-0123456789abcdef", mode: int = 0o600) -> Path:
    config_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    path = _token_file()
    path.write_text(content)
    path.chmod(mode)
    return path


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o666, 0o700])
def test_a_token_file_others_could_read_is_refused(tmp_path, mode):
    path = _plant(mode=mode)
    _refused(tmp_path, "0600")
    assert stat.S_IMODE(path.stat().st_mode) == mode  # left as it is for the user to see


def test_a_token_file_that_is_a_link_is_refused(tmp_path):
    elsewhere = tmp_path / "someone-elses-token"
    elsewhere.write_text("a-planted-token-0123456789abcdef")
    elsewhere.chmod(0o600)
    config_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    _token_file().symlink_to(elsewhere)
    _refused(tmp_path, "link")
    dangling = tmp_path / "not-yet"  # a link to where a token would be made
    _token_file().unlink()
    _token_file().symlink_to(dangling)
    _refused(tmp_path, "link")
    assert not dangling.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_token_file_of_another_owner_is_refused(tmp_path):
    path = _plant()
    os.chown(path, 65534, 65534)
    _refused(tmp_path, "owned by")


def test_a_config_directory_others_can_write_is_refused(tmp_path):
    _plant()
    config_dir().chmod(0o777)  # another account could swap the file
    _refused(tmp_path, "writable")


@pytest.mark.parametrize("content", ["", "short", "has spaces in it 0123456789",
                                     "\x00" * 40])
def test_a_damaged_token_file_is_a_one_line_error(tmp_path, content):
    _plant(content)
    _refused(tmp_path, "token file")


def test_no_token_is_explicit_warned_about_and_loopback_only(tmp_path):
    for host in ("0.0.0.0", "192.168.1.10", "example.com"):
        off = CliRunner().invoke(cli, ["serve", "--no-token", "--host", host,
                                       *_args(tmp_path)])
        assert off.exit_code == 2 and "refusing" in off.output, off.output
    both = CliRunner().invoke(cli, ["serve", "--no-token", "--token", "x" * 20,
                                    *_args(tmp_path)])
    assert both.exit_code == 2 and "--no-token" in both.output
    with serve_process(tmp_path, "--no-token", *_args(tmp_path)) as server:
        assert "warning" in server.output().lower()
        assert "every user of this machine" in server.output()
        assert "?token=" not in server.output()
        assert httpx.get(f"{server.url}/api/runs").status_code == 200
    assert not _token_file().exists()  # no token was made or kept
