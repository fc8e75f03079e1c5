"""The agent job's texts, from agent/prompts/agents.yaml (read by the kit's prompt loader,
jobs/prompts.py): the system prompts of the roles, what the job adds to the loop's
conversation (the workspace overview), and the multi-agent phases' requests. The loop's own
messages are the kit's (jobs/react/prompts.py)."""

from __future__ import annotations

from typing import Any

from codeloop.jobs.prompts import prompt_file, render

ROLES = ("single", "planner", "implementer", "validator")
_SECTIONS = (*ROLES, "common_rules", "edit_rules", "loop", "phases")


def _templates() -> dict[str, Any]:
    data = prompt_file("codeloop.agent", "agents")
    missing = [key for key in _SECTIONS if key not in data]
    if missing:
        raise RuntimeError(f"agents.yaml lacks prompt(s): {', '.join(missing)}")
    return data


def _section_text(section: str, key: str) -> str:
    texts = _templates()[section]
    if key not in texts:
        raise KeyError(f"agents.yaml has no {section} text {key!r}; known: {', '.join(texts)}")
    return texts[key]


def context_text(key: str, **values: Any) -> str:
    """What the agent job adds to a turn's conversation (agents.yaml `loop:`), e.g. the
    workspace's files."""
    return render(_section_text("loop", key), **values).strip()


def phase_request(key: str, **values: Any) -> str:
    """The request a multi-agent phase's agent gets (agents.yaml `phases:`), as written."""
    return render(_section_text("phases", key), **values)


def system_prompt(role: str, tools_description: str) -> str:
    templates = _templates()
    if role not in ROLES:
        raise KeyError(f"unknown agent role {role!r}; known: {', '.join(ROLES)}")
    return render(templates[role], tools=tools_description,
                  rules=templates["common_rules"].strip(),
                  edit_rules=templates["edit_rules"].strip()).strip()
