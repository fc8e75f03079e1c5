"""`codeloop serve` as a user runs it: refusals are one line with exit code 2 and start
nothing; `--token auto` prints a token that the real server (a subprocess) then requires.
(The kept token and --no-token: tests/attacks/test_server_token.py.)"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest
import typer
from server_kit import served
from typer.testing import CliRunner

from codeloop.cli import app
from codeloop.commands.serve_cmd import choose_token, is_loopback


def _serve(*args: str):
    return CliRunner().invoke(app, ["serve", *args])


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.com"])
def test_any_other_address_without_a_token_refuses_to_start(host, tmp_path):
    result = _serve("--host", host, "--no-token", "--store", str(tmp_path / "runs.sqlite"))
    assert result.exit_code == 2
    assert "refusing to serve" in result.output and "--no-token" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "runs.sqlite").exists()


def test_bad_token_and_bad_root_are_one_line_errors(tmp_path):
    short = _serve("--host", "0.0.0.0", "--token", "abc")
    assert short.exit_code == 2 and "16 characters" in short.output
    missing = _serve("--root", str(tmp_path / "nope"), "--store", str(tmp_path / "s.sqlite"))
    assert missing.exit_code == 2 and "not an existing directory" in missing.output
    assert not (tmp_path / "s.sqlite").exists()
    bad_model = _serve("--model", "nonsense:?", "--store", str(tmp_path / "s.sqlite"),
                       "--root", str(tmp_path))
    assert bad_model.exit_code == 2 and "nonsense" in bad_model.output
    assert not (tmp_path / "s.sqlite").exists()


def test_token_rules():
    kept = choose_token(None, "127.0.0.1")  # made on the first call, then the same
    assert len(kept) >= 32 and choose_token(None, "0.0.0.0") == kept
    assert choose_token(None, "127.0.0.1", no_token=True) is None
    first, second = choose_token("auto", "0.0.0.0"), choose_token("AUTO", "0.0.0.0")
    assert len(first) >= 24 and first != second
    assert choose_token("  a-long-enough-token-123  ", "0.0.0.0") == "a-long-enough-token-123"
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "10.0.0.1", "localhost.evil.com", ""))


LOOPBACK = ["127.0.0.1", "127.0.0.2", "127.255.1.9", "localhost", "LocalHost", "::1",
            "[::1]"]
NOT_LOOPBACK = ["0.0.0.0", "10.0.0.1", "example.com", "localhost.evil.com", "128.0.0.1"]


def _host_header(host: str) -> str:
    bare = host.strip("[]")
    return f"[{bare}]:8765" if ":" in bare else f"{host}:8765"


def test_every_address_serve_binds_without_a_token_is_one_the_app_answers(tmp_path):
    for host in NOT_LOOPBACK:
        with pytest.raises(typer.Exit):  # `fail`: exit code 2
            choose_token(None, host, no_token=True)
    with served(tmp_path, token=None) as client:  # --no-token: the loopback rule on Host
        for host in LOOPBACK:
            assert choose_token(None, host, no_token=True) is None  # serve starts on it
            answer = client.get("/api/info", headers={"host": _host_header(host)})
            assert answer.status_code == 200, (host, answer.text)
        for host in NOT_LOOPBACK:
            answer = client.get("/api/info", headers={"host": _host_header(host)})
            assert answer.status_code == 403, host
            assert answer.json()["error"] == "forbidden"


def test_the_real_server_prints_its_auto_token_and_requires_it(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "CODELOOP_TOKEN": "auto"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeloop", "serve", "--port", str(port), "--root",
         str(tmp_path), "--store", str(tmp_path / "runs.sqlite"), "--model",
         "scripted:/nonexistent.yaml"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        token = re.search(r"^token: (\S+)$", "".join(lines), re.MULTILINE).group(1)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                refused = httpx.get(f"{url}/api/runs", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None, lines
                time.sleep(0.1)
        assert refused.status_code == 401
        ok = httpx.get(f"{url}/api/runs", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200 and ok.json()["total"] == 0
        # no CORS: another origin's preflight and its GET get no Access-Control-Allow-*
        other = "http://evil.example"
        preflight = httpx.request("OPTIONS", f"{url}/api/runs", headers={
            "Origin": other, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        read = httpx.get(f"{url}/api/runs", headers={
            "Origin": other, "Authorization": f"Bearer {token}"})
        assert read.status_code == 200  # answered: only the browser's CORS check blocks it
        for answer in (preflight, read):
            assert not any(k.lower().startswith("access-control-allow-")
                           for k in answer.headers), answer.headers
        posted = httpx.post(f"{url}/api/runs", json={"job": "solve", "params": {}},
                            headers={"Origin": other, "Authorization": f"Bearer {token}"})
        assert posted.status_code == 403 and "cross-site" in posted.json()["detail"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
