"""Every error the API gives is JSON `{error, detail}` with the 4xx that says what happened;
none is a traceback or a 500 (a bug still answers JSON, and is logged)."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from codeloop.server.schemas import ErrorBody

log = logging.getLogger("codeloop.server")

# Documented on every API route (what schemathesis checks the answers against).
ERROR_RESPONSES = {code: {"model": ErrorBody, "description": what} for code, what in (
    (400, "Bad input (a path, a task, a model spec, a Last-Event-ID out of range)"),
    (401, "Token missing or wrong"),
    (403, "Outside the --root directories, cross-site, or (no token) not a loopback Host"),
    (404, "No such run or file"),
    (409, "The run is not in a state that allows this"),
    (411, "A chunked body: send it with a Content-Length"),
    (413, "A body over the 4 MiB limit"),
    (422, "The body or a parameter does not match the schema"),
    (429, "Too many live runs, or too many open event streams"),
    (503, "The run store cannot be used"),
)}

_REASONS = {400: "bad request", 401: "unauthorized", 403: "forbidden", 404: "not found",
            405: "method not allowed", 409: "conflict", 411: "length required",
            413: "too large",
            422: "invalid request", 429: "too many runs", 503: "store unavailable"}


def error_response(status: int, detail: str, error: str | None = None) -> JSONResponse:
    line = " ".join(str(detail).split())[:2000]  # one line, bounded
    return JSONResponse({"error": error or _REASONS.get(status, "error"), "detail": line},
                        status_code=status)


def _validation_detail(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "the request does not match the schema"


def install(app: FastAPI) -> None:
    from codeloop.llm.base import LLMError, ModelUnreachable
    from codeloop.server.job_runners import BadRequest
    from codeloop.server.roots import BadPath, PathOutsideRoots
    from codeloop.server.run_manager import RunConflict, RunNotFound, StartFailed, TooManyRuns
    from codeloop.server.stream_gate import TooManyStreams
    from codeloop.store import RunNotResumable, StoreError

    mapping: list[tuple[type[Exception], int, str]] = [
        (RunNotResumable, 409, "conflict"),  # before StoreError, its base
        (RunConflict, 409, "conflict"),
        (RunNotFound, 404, "not found"),
        (TooManyRuns, 429, "too many runs"),
        (TooManyStreams, 429, "too many streams"),
        (PathOutsideRoots, 403, "outside roots"),
        (BadPath, 400, "bad path"),
        (BadRequest, 400, "bad request"),
        (StartFailed, 400, "run failed to start"),
        (LLMError, 400, "model"),
        (ModelUnreachable, 502, "model unreachable"),  # nothing answers at the model's URL
        (StoreError, 503, "store unavailable"),
    ]
    try:
        from codeloop.review.service import ReviewInputError

        mapping.append((ReviewInputError, 400, "bad review request"))
    except ImportError:
        pass

    for exc_class, status, name in mapping:
        def handler(_request: Request, exc: Exception, status=status, name=name):
            return error_response(status, str(exc) or type(exc).__name__, name)

        app.add_exception_handler(exc_class, handler)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        return error_response(422, _validation_detail(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException):
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(OSError)
    async def _os_error(request: Request, exc: OSError):
        from codeloop.path_limits import is_too_long, too_long_line

        if is_too_long(exc):  # a path no check looked at: bad input all the same
            return error_response(400, too_long_line(exc), "bad path")
        return await _bug(request, exc)

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception):  # never a traceback to the client
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, f"internal error ({type(exc).__name__}); see the server log",
                              "internal")
