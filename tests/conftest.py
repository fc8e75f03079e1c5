"""Test-wide isolation: a throw-away data dir (run store) and config dir per test, and real
model calls forbidden unless a test is marked `real_model`."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch, request):
    base = tmp_path_factory.mktemp("codeloop-home")
    monkeypatch.setenv("CODELOOP_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("CODELOOP_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("CODELOOP_SCRATCH_DIR", str(base / "scratch"))
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT",
                "AZURE_OPENAI_API_KEY", "OLLAMA_HOST", "CODELOOP_MODEL"):
        monkeypatch.delenv(var, raising=False)
    if request.node.get_closest_marker("real_model") is None:
        monkeypatch.setenv("CODELOOP_FORBID_REAL_MODELS", "1")
    else:
        monkeypatch.delenv("CODELOOP_FORBID_REAL_MODELS", raising=False)
