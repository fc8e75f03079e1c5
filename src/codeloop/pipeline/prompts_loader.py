"""Prompts are data: YAML files in `codeloop/pipeline/prompts/`, rendered with Jinja.

Each file holds `user` (a Jinja template), optionally `system` and `retry_note`, and the
stage's budget: `max_tokens` and `temperature` (plus any stage-specific numbers). The user
message is stripped, and ends with one newline when the file says `trailing_newline: true`
(EvalPlus' instruct prompt does, and greedy answers change with it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml
from jinja2 import Environment, StrictUndefined

from codeloop.llm.base import Message

_ENV = Environment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


@dataclass(frozen=True)
class PromptSpec:
    name: str
    user: str
    system: str = ""
    retry_note: str = ""
    max_tokens: int = 512
    temperature: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def messages(self, **variables: Any) -> list[Message]:
        out = []
        if self.system:
            out.append(Message("system", _ENV.from_string(self.system).render(**variables)))
        text = _ENV.from_string(self.user).render(**variables).strip()
        out.append(Message("user", text + ("\n" if self.extra.get("trailing_newline") else "")))
        return out


@cache
def load_prompt(name: str) -> PromptSpec:
    """The prompt `prompts/<name>.yaml` from the installed package."""
    text = resources.files("codeloop.pipeline").joinpath("prompts", f"{name}.yaml").read_text(
        encoding="utf-8")
    data = yaml.safe_load(text)
    known = {"user", "system", "retry_note", "max_tokens", "temperature"}
    return PromptSpec(
        name=name,
        user=data["user"],
        system=data.get("system", ""),
        retry_note=data.get("retry_note", ""),
        max_tokens=int(data.get("max_tokens", 512)),
        temperature=float(data.get("temperature", 0.0)),
        extra={k: v for k, v in data.items() if k not in known},
    )
