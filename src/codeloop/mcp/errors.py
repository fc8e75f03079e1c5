"""The API's errors as MCP tool errors: one line saying what is wrong, as the HTTP API says it
(errors.py maps the same exceptions to 4xx), never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["ToolError", "api_call", "one_line", "tool_error"]

T = TypeVar("T")


def _expected() -> tuple[type[Exception], ...]:
    from codeloop.llm.base import LLMError, ModelUnreachable
    from codeloop.review.service import ReviewInputError
    from codeloop.server.job_runners import BadRequest
    from codeloop.server.roots import BadPath, PathOutsideRoots
    from codeloop.server.run_manager import RunConflict, RunNotFound, StartFailed, TooManyRuns
    from codeloop.store import StoreError

    return (StoreError, RunConflict, RunNotFound, TooManyRuns, PathOutsideRoots, BadPath,
            BadRequest, StartFailed, LLMError, ModelUnreachable, ReviewInputError)


def one_line(text: str) -> str:
    return " ".join(str(text).split())[:2000]


def tool_error(exc: BaseException) -> ToolError:
    return ToolError(one_line(str(exc) or type(exc).__name__))


def api_call(fn: Callable[..., T], *args, **kwargs) -> T:
    """`fn(*args)`; the API's expected errors become a ToolError with their one line."""
    try:
        return fn(*args, **kwargs)
    except _expected() as exc:
        raise tool_error(exc) from None
    except OSError as exc:  # ENAMETOOLONG from a path no check looked at: bad input
        from codeloop.path_limits import is_too_long, too_long_line

        if is_too_long(exc):
            raise ToolError(too_long_line(exc)) from None
        raise
