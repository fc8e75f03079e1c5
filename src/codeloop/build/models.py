"""Which model each build agent uses. One model for all (a local model serialises its calls
itself), or, with a scripted model, a script per agent: a YAML/JSON file

    agents:
      task:T1: [replies...]     # the task agent of T1
      merge: [...]              # conflict resolutions
      integration: [...]
      default: [...]            # any agent not named (optional)
    delay_seconds: 0.5          # every reply takes that long (optional; tests of timing)

Parallel task agents share no ordered script this way, so a scripted build is repeatable
(the bundled example and the tests run on it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from codeloop.llm.base import LLM
from codeloop.llm.scripted import ScriptedLLM, ScriptFileError


def per_agent_script(path: str | Path) -> dict[str, Any] | None:
    """The `agents` mapping of a scripted model file, or None when it is a plain script."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError):
        return None  # the registry's own loader reports it
    if isinstance(data, dict) and isinstance(data.get("agents"), dict):
        return data["agents"]
    return None


def _script_delay(path: str | Path) -> float:
    """The per-agent script's `delay_seconds` (0 when it has none)."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError):
        return 0.0
    return data.get("delay_seconds", 0.0) if isinstance(data, dict) else 0.0


def scripted_agents(agents: dict[str, Any], name: str = "scripted",
                    delay_seconds: float = 0.0) -> Callable[[str], LLM]:
    """One ScriptedLLM per agent key (built once); an unnamed agent gets `default`, or an
    empty script (its first call fails with ScriptExhausted, naming it)."""
    for key, script in agents.items():
        if not isinstance(script, list):
            raise ScriptFileError(f"{name}: agents.{key} must be a list of replies")
    made: dict[str, LLM] = {}
    shared = ScriptedLLM(agents["default"], name=f"{name}[default]",
                         delay_seconds=delay_seconds) if "default" in agents else None

    def llm_for(key: str) -> LLM:
        if key not in made:
            if key in agents:
                made[key] = ScriptedLLM(agents[key], name=f"{name}[{key}]",
                                        delay_seconds=delay_seconds)
            else:
                made[key] = shared or ScriptedLLM([], name=f"{name}[{key}]")
        return made[key]

    return llm_for


def models_for(spec: str | None, settings: Any) -> Callable[[str], LLM]:
    """The agents' models for a --model spec (LLMError on a bad one)."""
    from codeloop.llm.registry import get_llm

    chosen = spec or settings.model
    if isinstance(chosen, str) and chosen.startswith("scripted:"):
        path = chosen.removeprefix("scripted:")
        agents = per_agent_script(path)
        if agents is not None:
            return scripted_agents(agents, chosen, _script_delay(path))
    llm = get_llm(spec, settings)
    return lambda _key: llm
