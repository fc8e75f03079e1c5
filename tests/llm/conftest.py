"""Fixtures of the model-layer tests."""

from __future__ import annotations

import pytest
from llm_stub_server import serve_openai_stub


@pytest.fixture
def openai_stub():
    yield from serve_openai_stub()
