"""The action a model takes each step, and the JSON schemas that constrain it.

An action is {"thought": str, "action": {"tool": <name>, "args": {...}}}. A tool's arguments
are all required (optional ones accept null): under constrained decoding a small model then
always produces a well-formed, complete call. `finish` ends the turn; its arguments are the
agent's final output schema. Two ways to ask for it (see jobs/react/asking.py):
  one_schema: one call whose `action` is a union with one branch per tool (`action_schema`);
  two_step:   `choice_schema` ({"thought", "tool"}), then that tool's `args_schema`. Small
              grammars: far faster under llama.cpp and easier for a small model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from codeloop.tools.base import Tool

FINISH = "finish"
# A thought is one or two sentences. Bounded in the grammar because a small model otherwise
# writes a numbered plan into it, runs out of tokens mid-string, and the reply is not JSON.
MAX_THOUGHT_CHARS = 200
THOUGHT_SCHEMA: dict[str, Any] = {"type": "string", "maxLength": MAX_THOUGHT_CHARS}


@dataclass(frozen=True)
class Action:
    thought: str
    tool: str
    args: dict[str, Any]

    @property
    def is_finish(self) -> bool:
        return self.tool == FINISH

    def signature(self) -> str:
        """A stable key for 'the same action with the same arguments'."""
        return self.tool + " " + json.dumps(self.args, sort_keys=True, default=str)

    def to_json(self) -> str:
        return json.dumps({"thought": self.thought,
                           "action": {"tool": self.tool, "args": self.args}}, ensure_ascii=False)


class FinishAnswer(BaseModel):
    """The single agent's final output: a message for the user."""

    answer: str


def _branch(name: str, args_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"tool": {"type": "string", "enum": [name]}, "args": args_schema},
        "required": ["tool", "args"],
        "additionalProperties": False,
    }


def action_schema(tools: list[Tool], finish_schema: dict[str, Any],
                  exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The JSON schema of one step. `exclude` drops tools (used to force a change of tack)."""
    branches = [_branch(t.name, t.parameters_schema(all_required=True))
                for t in tools if t.name not in exclude]
    branches.append(_branch(FINISH, finish_schema))
    return {
        "title": "agent_step",
        "type": "object",
        "properties": {"thought": THOUGHT_SCHEMA, "action": {"anyOf": branches}},
        "required": ["thought", "action"],
        "additionalProperties": False,
    }


def choice_schema(tools: list[Tool], exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Step one of two_step: the thought and the name of the tool to use (or finish)."""
    names = [t.name for t in tools if t.name not in exclude] + [FINISH]
    return {
        "title": "agent_choice",
        "type": "object",
        "properties": {"thought": THOUGHT_SCHEMA, "tool": {"type": "string", "enum": names}},
        "required": ["thought", "tool"],
        "additionalProperties": False,
    }


def args_schema(tool: str, tools: list[Tool], finish_schema: dict[str, Any]) -> dict[str, Any]:
    """Step two of two_step: the arguments of the chosen tool, every one required."""
    if tool == FINISH:
        return finish_schema
    for candidate in tools:
        if candidate.name == tool:
            return candidate.parameters_schema(all_required=True)
    raise KeyError(f"unknown tool {tool!r}")


def make_action(thought: Any, tool: str, args: dict[str, Any] | None) -> Action:
    """Schema-validated parts -> Action (a tool's null optional arguments are dropped)."""
    args = dict(args or {})
    if tool != FINISH:
        args = {k: v for k, v in args.items() if v is not None}
    return Action(str(thought or ""), tool, args)


def parse_action(data: dict[str, Any]) -> Action:
    """Data valid against `action_schema` -> Action."""
    action = data["action"]
    return make_action(data.get("thought"), action["tool"], action.get("args"))


def strict_model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A pydantic model's JSON schema made friendly to constrained decoding: references
    inlined, every property required, no extra properties, no titles or defaults."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def fix(node: Any) -> Any:
        if isinstance(node, list):
            return [fix(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return fix(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {k: fix(v) for k, v in node.items()
               if k not in ("title", "default", "properties")}
        if "properties" in node:  # field names are kept as they are, even "title"
            out["properties"] = {name: fix(sub) for name, sub in node["properties"].items()}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out

    return fix(raw)
