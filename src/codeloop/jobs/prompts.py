"""The one prompt loader: prompts are data, YAML files in a job's `prompts/` folder,
rendered with Jinja (undefined names are errors, never empty text).

`prompt_file(package, name)` is the mapping in `<package>/prompts/<name>.yaml`; `render`
fills one template. A file for one model call holds `user` (a template), optionally
`system` and `retry_note`, and the call's budget: `max_tokens` and `temperature` (plus any
numbers of its own); `load_prompt` reads it as a PromptSpec. The user message is stripped,
and ends with one newline when the file says `trailing_newline: true` (EvalPlus' instruct
prompt does, and greedy answers change with it).
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
_SPEC_KEYS = {"user", "system", "retry_note", "max_tokens", "temperature"}


@cache
def prompt_file(package: str, name: str) -> dict[str, Any]:
    """The mapping in `<package>/prompts/<name>.yaml` of the installed package."""
    path = resources.files(package).joinpath("prompts", f"{name}.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TypeError(f"{package}/prompts/{name}.yaml is not a mapping of prompts")
    return data


def render(template: str, **values: Any) -> str:
    """`template` with `values` filled in; an unknown name raises jinja2.UndefinedError."""
    return _ENV.from_string(template).render(**values)


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
            out.append(Message("system", render(self.system, **variables)))
        text = render(self.user, **variables).strip()
        out.append(Message("user", text + ("\n" if self.extra.get("trailing_newline") else "")))
        return out


@cache
def load_prompt(package: str, name: str) -> PromptSpec:
    """The one-call prompt `<package>/prompts/<name>.yaml`."""
    data = prompt_file(package, name)
    return PromptSpec(
        name=name,
        user=data["user"],
        system=data.get("system", ""),
        retry_note=data.get("retry_note", ""),
        max_tokens=int(data.get("max_tokens", 512)),
        temperature=float(data.get("temperature", 0.0)),
        extra={k: v for k, v in data.items() if k not in _SPEC_KEYS},
    )
