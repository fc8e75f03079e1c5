"""Structured output: a pydantic model or a JSON-schema dict becomes one JSON schema plus a
validator, and a bounded validate-and-retry loop for backends without constrained decoding.

`StructuredSchema.validate` returns a model instance when built from a pydantic class and
the plain JSON data when built from a schema dict.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema
from pydantic import BaseModel, ValidationError

from codeloop import jsonsafe
from codeloop.llm.base import (
    InvalidStructuredOutput,
    JsonReply,
    Message,
    Reply,
    Usage,
    user,
)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class StructuredSchema:
    name: str
    schema: dict[str, Any]
    model: type[BaseModel] | None = None

    @property
    def strict_compatible(self) -> bool:
        """OpenAI's strict mode needs closed objects with every property required."""
        return _strict_compatible(self.schema)

    def validate(self, data: Any) -> Any:
        if self.model is not None:
            try:
                return self.model.model_validate(data)
            except ValidationError as exc:
                raise InvalidStructuredOutput(_pydantic_problem(self.name, exc)) from exc
        validator_cls = jsonschema.validators.validator_for(self.schema)
        error = jsonschema.exceptions.best_match(validator_cls(self.schema).iter_errors(data))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            raise InvalidStructuredOutput(f"{self.name}: at {where}: {error.message}")
        return data

    def parse_text(self, text: str) -> Any:
        """JSON text (bare, fenced, or with chatter around one object) -> validated data."""
        return self.validate(parse_json_text(text, self.name))


def to_structured(schema: dict[str, Any] | type, name: str | None = None) -> StructuredSchema:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return StructuredSchema(_safe_name(name or schema.__name__), schema.model_json_schema(), schema)
    if isinstance(schema, dict):
        try:
            jsonschema.validators.validator_for(schema).check_schema(schema)
        except jsonschema.exceptions.SchemaError as exc:
            raise InvalidStructuredOutput(f"not a valid JSON schema: {exc.message}") from exc
        title = schema.get("title") if isinstance(schema.get("title"), str) else None
        return StructuredSchema(_safe_name(name or title or "response"), schema)
    raise TypeError(f"schema must be a pydantic model class or a JSON-schema dict, not {schema!r}")


def parse_json_text(text: str, name: str = "response") -> Any:
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return jsonsafe.loads(candidate)
        except json.JSONDecodeError:
            continue
    # Small models write Python's escapes (\' in a string) and raw newlines inside strings:
    # the object is meant, so read it leniently before asking again.
    for candidate in candidates:
        try:
            return jsonsafe.loads(_JSON_ESCAPE.sub(_keep_valid_escape, candidate), strict=False)
        except json.JSONDecodeError:
            continue
    # Head and tail: where a reply stops being JSON is usually near its end.
    flat = text.strip().replace("\n", " ")
    preview = flat if len(flat) <= 240 else f"{flat[:120]} ... {flat[-100:]}"
    raise InvalidStructuredOutput(f"{name}: the reply is not JSON: {preview!r}")


_JSON_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _keep_valid_escape(match: re.Match[str]) -> str:
    """A JSON escape stays; an invalid one (`\\'`, `\\x`) becomes its character."""
    return match.group(0) if match.group(1) in '"\\/bfnrtu' else match.group(1)


def schema_instruction(structured: StructuredSchema) -> str:
    return (
        "Reply with only one JSON object (no prose, no code fence) that matches this JSON "
        f"schema:\n{json.dumps(structured.schema, separators=(',', ':'))}"
    )


def complete_with_validation(
    call: Callable[[list[Message]], Reply],
    messages: list[Message],
    structured: StructuredSchema,
    *,
    attempts: int = 3,
) -> JsonReply:
    """Ask, validate, and on failure feed the problem back, at most `attempts` times.

    The returned Reply carries the usage and seconds of all attempts together."""
    started = time.perf_counter()
    usage = Usage()
    conversation = list(messages)
    problem = ""
    for attempt in range(1, max(1, attempts) + 1):
        reply = call(conversation)
        usage = usage + reply.usage
        try:
            data = structured.parse_text(reply.text)
        except InvalidStructuredOutput as exc:
            problem = str(exc)
            conversation = conversation + [
                Message("assistant", reply.text),
                user(f"That reply was invalid ({_shorten(problem)}). {schema_instruction(structured)}"),
            ]
            continue
        total = Reply(reply.text, usage, time.perf_counter() - started, reply.model,
                      reply.finish_reason)
        return JsonReply(data, total, attempt)
    raise InvalidStructuredOutput(
        f"no valid {structured.name} after {max(1, attempts)} attempt(s); last problem: {problem}",
        usage,
    )


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pydantic_problem(name: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        parts.append(f"{where}: {err['msg']}")
    return f"{name}: " + "; ".join(parts)


def _safe_name(name: str) -> str:
    # OpenAI's json_schema name allows [a-zA-Z0-9_-]{1,64}.
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]
    return cleaned or "response"


def _strict_compatible(node: Any) -> bool:
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            props = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                return False
            if set(node.get("required", [])) != set(props):
                return False
        return all(_strict_compatible(v) for v in node.values())
    if isinstance(node, list):
        return all(_strict_compatible(v) for v in node)
    return True
