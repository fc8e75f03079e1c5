"""Shared pieces for the server's tests: a real app on a real store in a tmp root, scripted
models written as files under the root, a review workspace with a bug and its test, and an
SSE reader."""

from __future__ import annotations

import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from codeloop.config import Settings
from codeloop.server.app import create_app

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
FIX_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
            ">>>>>>> REPLACE\n")
APPROVE = {"json": {"approved": True, "issues": [], "suggestions": []}}
ADD = "```python\ndef add(a, b):\n    return a + b\n```"
ADD_TASK = {"task_id": "add", "signature": "def add(a, b)", "docstring": "Sum.",
            "examples": "add(1, 2) == 3"}
# A review on the scripted model: the reviewer approves, the test fails, the refiner fixes.
REVIEW_SCRIPT = [{"match": "Reply with every file you change", "reply": FIX_EDIT}, APPROVE, APPROVE, APPROVE]


def write_script(directory: Path, replies: list, name: str = "script.yaml") -> str:
    path = directory / name
    path.write_text(yaml.safe_dump(replies))
    return f"scripted:{path}"


def review_workspace(root: Path, name: str = "ws") -> Path:
    ws = root / name
    ws.mkdir()
    (ws / "calc.py").write_text(BUGGY)
    (ws / "test_calc.py").write_text(TEST)
    return ws


LOG_IN = "log in"  # served()'s default: a token, and the client logged in by its link


@contextmanager
def served(root: Path, replies: list | None = None, *, token: str | None = LOG_IN,
           serial: frozenset[str] = frozenset(), max_live: int = 32,
           store: Path | None = None):
    """A TestClient on a real app (lifespan run), its default model a script under root.
    By default the server asks a token (as `codeloop serve` always does) and the client has
    logged in through the login link, as a browser does (it keeps the cookie). `token=X`: a
    server asking X, the client not logged in; `token=None`: a `--no-token` server."""
    from codeloop.server.auth import generate_token

    log_in = token == LOG_IN
    token = generate_token() if log_in else token
    spec = write_script(root, replies if replies is not None else [ADD], "default.yaml")
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], token,
                     store or root / "runs.sqlite", serial_backends=serial,
                     max_live_runs=max_live)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.app_state = app.state.server
        client.fastapi_app = app
        if log_in:
            answer = client.get(f"/?token={token}", follow_redirects=False)
            assert answer.status_code == 303 and "set-cookie" in answer.headers, answer
        yield client


def sse_messages(client: TestClient, url: str, headers: dict | None = None,
                 limit: int = 10_000) -> list[dict]:
    """Every message of an SSE stream until it closes: {id, event, data}."""
    out, current = [], {}
    with client.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line == "":
                if current.get("data") is not None:
                    out.append(current)
                current = {}
                if len(out) >= limit:
                    break
                continue
            if line.startswith(":"):
                continue
            key, _, value = line.partition(": ")
            current[key] = value if key != "data" else json.loads(value)
    return out


def wait_status(client: TestClient, run_id: str, wanted: set[str], timeout: float = 60.0,
                headers: dict | None = None) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        detail = client.get(f"/api/runs/{run_id}", headers=headers or {}).json()
        if detail["status"] in wanted and not detail["live"]:
            return detail
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} is {detail['status']}, not in {wanted}")
        time.sleep(0.05)


def start(client: TestClient, job: str, params: dict, headers: dict | None = None) -> str:
    response = client.post("/api/runs", json={"job": job, "params": params},
                           headers=headers or {})
    assert response.status_code == 202, response.text
    return response.json()["run_id"]


@contextmanager
def live_server(app):
    """The app on a real uvicorn server, on a free loopback port, in a thread: its URL."""
    import socket
    import threading

    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


# Debian's chromium, driven by Playwright (never `playwright install`). Skipped on a
# developer's machine without it; in CI (scripts/system-deps.sh installs it) a missing
# browser fails.
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                    reason="Debian's chromium is not installed "
                                    "(apt-get install -y chromium)")


@contextmanager
def chromium_page(playwright, errors: list[str]):
    """A page in headless chromium; page errors and console errors go into `errors`."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        yield page
    finally:
        browser.close()


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServeProcess:
    """A `codeloop serve` subprocess; everything it prints goes to `log` (a file, so a
    chatty server never blocks on a full pipe)."""

    def __init__(self, proc, url: str, log: Path) -> None:
        self.proc, self.url, self.log = proc, url, log

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def login_link(self) -> str:
        import re

        found = re.search(r"(http://\S+/\?token=\S+)", self.output())
        assert found, f"no login link printed:\n{self.output()}"
        return found.group(1)

    def token(self) -> str:
        return self.login_link().rsplit("?token=", 1)[1]


@contextmanager
def serve_process(directory: Path, *args: str, env: dict | None = None):
    """`codeloop serve --port FREE ARGS` as a user starts it, once it answers; stopped with
    SIGTERM at the end (its output stays in the log file)."""
    import signal
    import subprocess
    import sys

    import httpx

    port = free_port()
    log = directory / f"serve-{port}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "codeloop", "serve", "--port", str(port),
                                 *args], stdout=out, stderr=subprocess.STDOUT,
                                env=env or dict(os.environ), start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/api/info", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, f"serve exited:\n{log.read_text()}"
                assert time.monotonic() < deadline, f"serve did not answer:\n{log.read_text()}"
                time.sleep(0.1)
        yield ServeProcess(proc, url, log)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
