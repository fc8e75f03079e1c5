"""An MCP tool's result as the observation text the agent reads.

The result is untrusted text from another program: only its text is kept (images, audio and
binary resources are named, not shown), it is cut to what an observation may hold with a note
saying so, and the ReAct loop redacts it as it does every tool's output. Nothing in it is ever
read as configuration or instructions to codeloop.
"""

from __future__ import annotations

import json
from typing import Any

from codeloop.tools.toolbox import MAX_OBSERVATION_CHARS

# What is shown of one result: the toolbox's own cap, so the note below is the one the model
# reads (the toolbox would otherwise cut again with its generic note).
RESULT_CHARS = MAX_OBSERVATION_CHARS - 200


def result_text(result: Any) -> tuple[bool, str]:
    """(is_error, text) of a CallToolResult, the text capped."""
    parts = [_block_text(block) for block in (result.content or [])]
    text = "\n".join(part for part in parts if part)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False, default=str)
    return bool(result.is_error), capped(text or "(the tool returned nothing)")


def capped(text: str, limit: int = RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return (text[:limit] + f"\n... [the MCP tool's result was cut: {len(text):,} characters, "
            f"the first {limit:,} shown]")


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} ({getattr(block, 'mime_type', '?')}) not shown]"
    if kind == "resource":
        inner = block.resource
        text = getattr(inner, "text", None)
        return str(text) if text is not None else f"[binary resource {inner.uri} not shown]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}]"
    return f"[{kind or 'unknown'} content not shown]"
