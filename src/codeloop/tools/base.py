"""A tool is a typed function; its JSON schema comes from its signature and docstring.

Tool functions take the `Workspace` as their first parameter (it is bound by the toolbox,
not shown to the model) and return the observation text. Expected failures raise
`ToolError`, whose message is what the model reads.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class ToolError(Exception):
    """A tool could not do what was asked; the message is shown to the model as is."""


_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True)
class Param:
    name: str
    json_type: str
    description: str
    required: bool
    default: Any = None
    nullable: bool = False

    def schema(self) -> dict[str, Any]:
        json_type: Any = [self.json_type, "null"] if self.nullable else self.json_type
        out: dict[str, Any] = {"type": json_type}
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    func: Callable[..., str] = field(repr=False, compare=False)
    mutates_files: bool = False
    # Arguments that hold a file's text (code). A model writes those better as plain text in
    # a ``` block than escaped inside a JSON string (see jobs/react/text_args.py).
    text_args: tuple[str, ...] = ()

    def parameters_schema(self, *, all_required: bool = False,
                          exclude: tuple[str, ...] = ()) -> dict[str, Any]:
        """The arguments' JSON schema. `all_required` makes every argument required (optional
        ones accept null): small models under constrained decoding then always emit them.
        `exclude` leaves arguments out (the text arguments, when asked for apart)."""
        params = [p for p in self.params if p.name not in exclude]
        required = [p.name for p in params if all_required or p.required]
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in params},
            "required": required,
            "additionalProperties": False,
        }

    def signature_line(self) -> str:
        args = []
        for p in self.params:
            text = f"{p.name}: {p.json_type}"
            if not p.required:
                text += f" = {json.dumps(p.default)}"
            args.append(text)
        return f"{self.name}({', '.join(args)})"

    def fill_defaults(self, args: dict[str, Any]) -> dict[str, Any]:
        """Arguments with defaults put in for missing or null optional ones."""
        out = dict(args)
        for p in self.params:
            if not p.required and out.get(p.name) is None:
                out[p.name] = p.default
        return out


def tool(func: Callable[..., str] | None = None, *, mutates_files: bool = False,
         text_args: tuple[str, ...] = ()):
    """Decorator: turn `func(workspace, arg: type, ...) -> str` into a Tool."""

    def wrap(fn: Callable[..., str]) -> Tool:
        return tool_from_function(fn, mutates_files=mutates_files, text_args=text_args)

    return wrap(func) if func is not None else wrap


def tool_from_function(fn: Callable[..., str], *, mutates_files: bool = False,
                       text_args: tuple[str, ...] = ()) -> Tool:
    hints = typing.get_type_hints(fn)
    doc = inspect.getdoc(fn) or ""
    summary, arg_docs = _parse_docstring(doc)
    params = []
    signature = inspect.signature(fn)
    for index, (name, parameter) in enumerate(signature.parameters.items()):
        if index == 0:  # the workspace, bound by the toolbox
            continue
        json_type, nullable = _json_type(hints.get(name, str), fn.__name__, name)
        required = parameter.default is inspect.Parameter.empty
        params.append(Param(
            name=name, json_type=json_type, description=arg_docs.get(name, ""),
            required=required, default=None if required else parameter.default,
            nullable=nullable,
        ))
    if not summary:
        raise TypeError(f"tool {fn.__name__} needs a docstring: it is the model's description")
    strings = {p.name for p in params if p.json_type == "string" and p.required}
    if not set(text_args) <= strings:
        raise TypeError(f"tool {fn.__name__}: text arguments {sorted(set(text_args) - strings)} "
                        "must be required string arguments")
    return Tool(fn.__name__, summary, tuple(params), fn, mutates_files, tuple(text_args))


def _json_type(hint: Any, fn_name: str, arg: str) -> tuple[str, bool]:
    nullable = False
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(hint) if m is not type(None)]
        nullable = len(members) < len(typing.get_args(hint))
        if len(members) != 1:
            raise TypeError(f"tool {fn_name}: argument {arg} must have one scalar type")
        hint = members[0]
    if hint not in _JSON_TYPES:
        raise TypeError(f"tool {fn_name}: argument {arg} has unsupported type {hint!r}")
    return _JSON_TYPES[hint], nullable


_ARG_LINE = re.compile(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Google style: the text before `Args:` is the description; `name: text` lines after it
    (with indented continuation lines) describe the arguments."""
    head, _, rest = doc.partition("\nArgs:")
    summary = " ".join(line.strip() for line in head.strip().splitlines() if line.strip())
    arg_docs: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        if line.strip() and not line[0].isspace():  # the next section (Returns:, ...)
            break
        match = _ARG_LINE.match(line)
        if match and len(line) - len(line.lstrip()) <= 4:
            current = match.group(1)
            arg_docs[current] = match.group(2).strip()
        elif current and line.strip():
            arg_docs[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return summary, arg_docs
