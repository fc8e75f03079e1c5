"""Two runs at once on the real embedded 0.5B model through the API: the local model takes
one call at a time, so one run shows `queued` while the other is in a model call, and both
still finish with correct code."""

from __future__ import annotations

import time

import pytest
from server_kit import wait_status

from codeloop.config import Settings
from codeloop.server.app import create_app

TASK = {"task_id": "add", "signature": "def add(a: int, b: int) -> int",
        "docstring": "Return the sum of a and b.", "examples": "add(1, 2) == 3"}


@pytest.mark.real_model
@pytest.mark.timeout(900)  # ~20 s on an idle 2-core machine; much more when it is shared
def test_two_runs_share_the_local_model_one_call_at_a_time(tmp_path):
    import llama_cpp  # noqa: F401 - fail (not skip) when the runtime is missing
    from fastapi.testclient import TestClient

    from codeloop.server.auth import generate_token

    settings = Settings(model="local:qwen2.5-coder-0.5b", n_ctx=2048, sandbox_timeout=20)
    token = generate_token()  # `codeloop serve` always asks one
    app = create_app(settings, [tmp_path], token, tmp_path / "runs.sqlite")
    with TestClient(app, base_url="http://127.0.0.1",
                    headers={"Authorization": f"Bearer {token}"}) as client:
        ids = [client.post("/api/runs", json={"job": "solve", "params": {"task": TASK}}
                           ).json()["run_id"] for _ in range(2)]
        seen: set[str] = set()
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            statuses = {r["id"]: r["status"] for r in client.get("/api/runs").json()["runs"]}
            seen |= set(statuses.values())
            if all(statuses[i] not in ("running", "queued") for i in ids):
                break
            time.sleep(0.05)
        assert "queued" in seen
        for run_id in ids:
            detail = wait_status(client, run_id, {"succeeded", "failed"})
            assert detail["status"] == "succeeded", detail["result"]["review"]
            assert detail["tokens"] > 0
