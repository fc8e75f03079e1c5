"""The agents' system prompts and the loop's own messages, rendered from
agent/prompts/agents.yaml."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2
import yaml

ROLES = ("single", "planner", "implementer", "validator")


@lru_cache(maxsize=1)
def _templates() -> dict[str, Any]:
    text = resources.files("codeloop.agent").joinpath("prompts/agents.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    missing = [key for key in (*ROLES, "common_rules", "edit_rules", "loop") if key not in data]
    if missing:
        raise RuntimeError(f"agents.yaml lacks prompt(s): {', '.join(missing)}")
    return data


def _render(template: str, **values: Any) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False,
                             autoescape=False)
    return env.from_string(template).render(**values).strip()


def loop_text(key: str, **values: Any) -> str:
    """One of the loop's messages (agents.yaml `loop:`), e.g. the request for arguments."""
    texts = _templates()["loop"]
    if key not in texts:
        raise KeyError(f"agents.yaml has no loop text {key!r}; known: {', '.join(texts)}")
    return _render(texts[key], **values)


def system_prompt(role: str, tools_description: str) -> str:
    templates = _templates()
    if role not in ROLES:
        raise KeyError(f"unknown agent role {role!r}; known: {', '.join(ROLES)}")
    return _render(templates[role], tools=tools_description,
                   rules=templates["common_rules"].strip(),
                   edit_rules=templates["edit_rules"].strip())
