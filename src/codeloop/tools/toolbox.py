"""A set of tools bound to one workspace: validates arguments, runs the tool, and turns every
failure into an observation (the agent loop never crashes on a tool)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import jsonschema

from codeloop.events import EventBus, ToolCall
from codeloop.tools.base import Tool, ToolError
from codeloop.tools.workspace import Workspace

MAX_OBSERVATION_CHARS = 12_000


@dataclass(frozen=True)
class ToolOutcome:
    tool: str
    ok: bool
    output: str
    seconds: float


class Toolbox:
    def __init__(self, workspace: Workspace, tools: list[Tool], bus: EventBus | None = None,
                 stage: str = "") -> None:
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate tool names: {names}")
        self.workspace = workspace
        self.tools = {t.name: t for t in tools}
        self.bus = bus
        self.stage = stage

    @property
    def names(self) -> list[str]:
        return list(self.tools)

    def describe(self) -> str:
        """One line per tool for the system prompt: signature, then what it does."""
        return "\n".join(f"- {t.signature_line()}: {t.description}" for t in self.tools.values())

    def run(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        started = time.perf_counter()
        ok, output = self._run(name, args)
        if len(output) > MAX_OBSERVATION_CHARS:
            cut = len(output) - MAX_OBSERVATION_CHARS
            output = output[:MAX_OBSERVATION_CHARS] + f"\n... ({cut} more characters cut)"
        outcome = ToolOutcome(name, ok, output, time.perf_counter() - started)
        if self.bus is not None:
            self.bus.emit(ToolCall(tool=name, arguments=args, result=output, ok=ok,
                                   seconds=outcome.seconds))
        return outcome

    def _run(self, name: str, args: dict[str, Any]) -> tuple[bool, str]:
        tool = self.tools.get(name)
        if tool is None:
            return False, f"Error: there is no tool {name!r}; the tools are {', '.join(self.tools)}"
        if not isinstance(args, dict):
            return False, f"Error: the arguments of {name} must be an object"
        schema = tool.parameters_schema()
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(schema).iter_errors(args))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "arguments"
            return False, (f"Error: bad arguments for {tool.signature_line()}: "
                           f"{where}: {error.message}")
        try:
            return True, tool.func(self.workspace, **tool.fill_defaults(args))
        except ToolError as exc:
            return False, f"Error: {exc}"
        except Exception as exc:  # noqa: BLE001 - a tool bug becomes an observation, not a crash
            return False, f"Error: {name} failed unexpectedly: {type(exc).__name__}: {exc}"
