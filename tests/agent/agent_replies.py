"""Helpers to write scripted model replies in the agent's action shape."""

from __future__ import annotations

import json


def act(tool: str, thought: str = "", **args) -> str:
    """One scripted model reply: an action in the agent's JSON shape."""
    return json.dumps({"thought": thought or f"use {tool}", "action": {"tool": tool, "args": args}})


def finish(answer: str) -> str:
    return act("finish", "done", answer=answer)
