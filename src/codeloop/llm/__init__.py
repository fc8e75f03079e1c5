"""The one seam to language models. Names are exported lazily so that importing
`codeloop.llm.base` (as most modules do) stays cheap."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "get_llm": "codeloop.llm.registry",
    "parse_spec": "codeloop.llm.registry",
    "list_models": "codeloop.llm.registry",
    "ModelSpec": "codeloop.llm.registry",
    "ScriptedLLM": "codeloop.llm.scripted",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codeloop.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = ["ModelSpec", "ScriptedLLM", "get_llm", "list_models", "parse_spec"]
