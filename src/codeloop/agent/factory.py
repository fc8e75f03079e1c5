"""Building the agents: the single agent and the three roles of multi-agent mode."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from codeloop.agent.prompts import system_prompt
from codeloop.events import EventBus
from codeloop.jobs.react.actions import FinishAnswer, strict_model_schema
from codeloop.jobs.react.state import AgentLimits, AgentSpec
from codeloop.tools import Tool, Toolbox, Workspace, toolset

_TOOLSET_OF_ROLE = {"single": "agent", "planner": "planner", "implementer": "implementer",
                    "validator": "validator"}
_STAGE_OF_ROLE = {"single": "agent", "planner": "planning", "implementer": "implementation",
                  "validator": "validation"}


def agent_spec(role: str, workspace: Workspace, *, finish: type[BaseModel] = FinishAnswer,
               limits: AgentLimits | None = None, bus: EventBus | None = None,
               extra_tools: list[Tool] | tuple[Tool, ...] = ()) -> AgentSpec:
    """An agent of `role` on `workspace`. The planner's shell sees the workspace read-only.
    `extra_tools`: beside the role's own (the MCP servers' tools of the user's config)."""
    if role == "planner":
        workspace = workspace.with_shell_mode("ro")
    box = Toolbox(workspace, toolset(_TOOLSET_OF_ROLE[role]) + list(extra_tools), bus=bus,
                  stage=_STAGE_OF_ROLE[role])
    finish_schema: dict[str, Any] = strict_model_schema(finish)
    return AgentSpec(_STAGE_OF_ROLE[role], system_prompt(role, box.describe()), box,
                     finish_schema, limits or AgentLimits())
