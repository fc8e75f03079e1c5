"""MCP servers' tools as the agent's tools: `server.tool`, with the server's input schema.

A server's schema is used as it is for checking a call's arguments; for the model it is made
friendly to constrained decoding as the agent's own tools are (jobs/react/actions.py): every
argument present, optional ones nullable (a null one is left out of the call). The signature
line in the system prompt names each argument with its JSON type; a description is cut short
(it is text another program wrote, and every line of it costs prefill).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from codeloop.mcp_client.hub import ListedTool, McpCallError, McpHub
from codeloop.mcp_client.results import result_text
from codeloop.textsafe import printable
from codeloop.tools.base import Tool, ToolError

DESCRIPTION_CHARS = 300
ARG_DESCRIPTION_CHARS = 80
# Keys of a JSON schema a model's grammar does not need (and titles would read as values).
_DROPPED_KEYS = ("title", "default", "examples", "$schema", "$id")


@dataclass(frozen=True)
class McpTool(Tool):
    """A Tool whose arguments are the MCP server's input schema, not a Python signature."""

    input_schema: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def parameters_schema(self, *, all_required: bool = False,
                          exclude: tuple[str, ...] = ()) -> dict[str, Any]:
        properties = {k: v for k, v in _properties(self.input_schema).items()
                      if k not in exclude}
        required = [k for k in _required(self.input_schema) if k in properties]
        out: dict[str, Any] = {"type": "object", "additionalProperties": False}
        if all_required:
            out["properties"] = {k: (_clean(v) if k in required else _nullable(_clean(v)))
                                 for k, v in properties.items()}
            out["required"] = list(properties)
        else:
            out["properties"] = properties
            out["required"] = required
        if isinstance(self.input_schema.get("$defs"), dict):
            out["$defs"] = _clean(self.input_schema["$defs"])
        return out

    def signature_line(self) -> str:
        required = set(_required(self.input_schema))
        args = []
        for name, schema in _properties(self.input_schema).items():
            text = f"{name}: {_type_name(schema)}"
            args.append(text if name in required else text + " = null")
        return f"{self.name}({', '.join(args)})"

    def fill_defaults(self, args: dict[str, Any]) -> dict[str, Any]:
        return dict(args)  # the server applies its own defaults


def mcp_tools(hub: McpHub) -> list[Tool]:
    """Every allowed tool of every running server, as agent tools."""
    return [_as_tool(hub, listed) for listed in hub.tools()]


def _as_tool(hub: McpHub, listed: ListedTool) -> McpTool:
    def run(_workspace: Any, /, **arguments: Any) -> str:
        try:
            result = hub.call(listed.server, listed.name, arguments)
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        is_error, text = result_text(result)
        if is_error:
            raise ToolError(f"{listed.qualified} reported an error: {text}")
        return text

    schema = listed.input_schema if listed.input_schema.get("type", "object") == "object" else {}
    return McpTool(name=listed.qualified, description=_description(listed, schema), params=(),
                   func=run, input_schema=schema)


def _description(listed: ListedTool, schema: dict[str, Any]) -> str:
    text = _short(listed.description, DESCRIPTION_CHARS) or f"a tool of MCP server {listed.server}"
    notes = []
    for name, sub in _properties(schema).items():
        about = _short(str(sub.get("description") or ""), ARG_DESCRIPTION_CHARS)
        if about:
            notes.append(f"{name}: {about}")
    return f"{text} (MCP server {listed.server}" + ("; " + "; ".join(notes) if notes else "") + ")"


def _short(text: str, limit: int) -> str:
    flat = printable(" ".join(str(text).split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {k: v for k, v in props.items() if isinstance(k, str) and isinstance(v, dict)}


def _required(schema: dict[str, Any]) -> list[str]:
    required = schema.get("required")
    return [k for k in required if isinstance(k, str)] if isinstance(required, list) else []


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _clean(v) for k, v in node.items() if k not in _DROPPED_KEYS and k != "properties"}
    if isinstance(node.get("properties"), dict):  # property names are kept, even "title"
        out["properties"] = {name: _clean(sub) for name, sub in node["properties"].items()}
    return out


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _type_name(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if "enum" in schema:
        return "one of " + json.dumps(schema["enum"])[:60]
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "any"
