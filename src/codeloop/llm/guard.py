"""The "no real models in tests" guard, checked once for every backend in the shared
request path (backend.py) and early in the registry for the local model (before assembling
a gigabyte of weights for nothing).

A test run sets CODELOOP_FORBID_REAL_MODELS=1. A test that talks to a stub HTTP server it
started itself lists that server's address in CODELOOP_MODEL_STUB_URLS: the stub is not a
model, and naming each one keeps a real server on localhost (Ollama) forbidden.
"""

from __future__ import annotations

import os

from codeloop.llm.base import RealModelForbidden

FORBID_ENV = "CODELOOP_FORBID_REAL_MODELS"
STUB_URLS_ENV = "CODELOOP_MODEL_STUB_URLS"


def _normal(url: str) -> str:
    return url.strip().rstrip("/")


def stub_urls() -> set[str]:
    return {_normal(u) for u in os.environ.get(STUB_URLS_ENV, "").split() if u.strip()}


def check_real_models_allowed(name: str = "", address: str | None = None) -> None:
    """Raise RealModelForbidden when this test run forbids real model calls and `address`
    is not a listed stub server."""
    if os.environ.get(FORBID_ENV) != "1":
        return
    if address and _normal(address) in stub_urls():
        return
    # Name the server too: the developer sees which call the test would have made.
    who = " at ".join(part for part in (name, address) if part)
    who = f"{who}: " if who else ""
    raise RealModelForbidden(
        f"{who}real model calls are forbidden in this test run ({FORBID_ENV}=1); use the "
        f"scripted model, list a stub server's URL in {STUB_URLS_ENV}, or mark the test "
        "real_model"
    )
