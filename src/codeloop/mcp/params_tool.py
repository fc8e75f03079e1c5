"""A tool whose arguments are an API params model's fields (the HTTP API's `params` for the
job, e.g. `solve`: `{task: {...}, model, max_refinements, ...}`), with their constraints and
descriptions in the tool's input schema, validated by that model before the tool runs."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from codeloop.mcp.errors import ToolError


def _parameter(name: str, field: Any) -> inspect.Parameter:
    annotation = Annotated[(field.annotation, *field.metadata,
                            Field(description=field.description))]
    default = (inspect.Parameter.empty if field.is_required()
               else field.get_default(call_default_factory=True))
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation)


def validated(model: type[BaseModel], arguments: dict[str, Any]) -> BaseModel:
    """The params, or a ToolError naming the first wrong field in one line."""
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "arguments"
        raise ToolError(f"{where}: {first['msg']}") from None


def params_tool(model: type[BaseModel], run: Callable[..., Awaitable[Any]], *,
                name: str, doc: str, extra: dict[str, Any]) -> Callable[..., Awaitable[Any]]:
    """`async fn(**fields of model, **extra)` calling `run(params, **extra values)`.

    `extra`: parameters the SDK fills (the Context, resolved client roots) as
    name -> annotation; `run`'s return annotation is the tool's output schema."""
    fields = [_parameter(n, f) for n, f in model.model_fields.items()]
    extras = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=a,
                                default=None) for n, a in extra.items()]
    returns = inspect.signature(run, eval_str=True).return_annotation

    async def tool(**kwargs: Any) -> Any:
        filled = {n: kwargs.pop(n, None) for n in extra}
        return await run(validated(model, kwargs), **filled)

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    tool.__signature__ = inspect.Signature([*fields, *extras], return_annotation=returns)
    tool.__annotations__ = {p.name: p.annotation for p in [*fields, *extras]} | {
        "return": returns}
    return tool
