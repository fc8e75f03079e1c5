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
REVIEW_SCRIPT = [{"match": "Fix these problems", "reply": FIX_EDIT}, APPROVE, APPROVE, APPROVE]


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


@contextmanager
def served(root: Path, replies: list | None = None, *, token: str | None = None,
           serial: frozenset[str] = frozenset(), max_live: int = 32,
           store: Path | None = None):
    """A TestClient on a real app (lifespan run), its default model a script under root."""
    spec = write_script(root, replies if replies is not None else [ADD], "default.yaml")
    app = create_app(Settings(model=spec, sandbox_timeout=20), [root], token,
                     store or root / "runs.sqlite", serial_backends=serial,
                     max_live_runs=max_live)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.app_state = app.state.server
        client.fastapi_app = app
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
