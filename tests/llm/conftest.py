"""Fixtures of the model-layer tests."""

from __future__ import annotations

import pytest
from llm_stub_server import allow_stub_url, serve_openai_stub


@pytest.fixture
def openai_stub(monkeypatch):
    """A stub OpenAI-compatible server, listed as a stub so the real-model guard lets
    backends call it."""
    for stub in serve_openai_stub():
        allow_stub_url(monkeypatch, stub.url)
        yield stub
