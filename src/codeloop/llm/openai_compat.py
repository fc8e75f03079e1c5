"""Any OpenAI-compatible server (OpenAI, Azure, Ollama, vLLM, LM Studio, llama.cpp server…)
through the `openai` client. Its own retries are off: ours are bounded, back off
exponentially, and only repeat transient failures (a dropped connection, timeout, 429, 5xx).
A connection that cannot be made at all (refused, no such host) is no hiccup: it raises
ModelUnreachable at once, which every job stops on.
"""

from __future__ import annotations

import errno
import logging
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from codeloop.llm.backend import BackendLLM, ModelRequest
from codeloop.llm.base import (
    BackendHTTPError,
    BackendTimeout,
    BackendUnreachable,
    JsonReply,
    LLMError,
    MalformedResponse,
    Message,
    ModelUnreachable,
    Reply,
    Usage,
)
from codeloop.llm.schema import StructuredSchema, complete_with_validation, schema_instruction

log = logging.getLogger(__name__)

# Statuses that mean "this server does not do json_schema output", not "the call failed".
_SCHEMA_REJECTED = {400, 404, 415, 422, 501}


def is_transient(exc: LLMError) -> bool:
    if isinstance(exc, (BackendUnreachable, BackendTimeout)):
        return True
    return isinstance(exc, BackendHTTPError) and (exc.status == 429 or (exc.status or 0) >= 500)


def is_schema_rejection(exc: LLMError) -> bool:
    """Some servers (llama.cpp's Python server) answer an unknown response_format with 500."""
    if not isinstance(exc, BackendHTTPError):
        return False
    return exc.status in _SCHEMA_REJECTED or "response_format" in str(exc)


class OpenAICompatLLM(BackendLLM):
    """`name` is the spec ("openai:gpt-4o-mini", "ollama:qwen2.5-coder:7b"); `model` is what
    the server calls the model (for Azure: the deployment)."""

    json_attempts = 3

    def __init__(
        self,
        model: str,
        *,
        name: str,
        base_url: str | None = None,
        api_key: str = "",
        timeout: float = 300.0,
        max_retries: int = 2,
        azure_endpoint: str = "",
        azure_api_version: str = "",
        extra_body: dict[str, Any] | None = None,
        context_limit: int | None = None,
        backoff_seconds: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import openai

        self.name = name
        self.model = model
        self.max_retries = max(0, max_retries)
        self.extra_body = extra_body or {}
        self.context_limit = context_limit
        self.backoff_seconds = backoff_seconds
        self._sleep = sleep
        self._json_schema_ok = True
        self._stream_usage_ok = True
        key = api_key or "not-needed"  # local servers ignore it; the client insists on one
        if azure_endpoint:
            self.address = azure_endpoint
            self._client = openai.AzureOpenAI(
                azure_endpoint=azure_endpoint, api_version=azure_api_version or None,
                api_key=key, timeout=timeout, max_retries=0,
            )
        else:
            self.address = base_url or "https://api.openai.com/v1"
            self._client = openai.OpenAI(
                base_url=base_url or None, api_key=key, timeout=timeout, max_retries=0
            )

    def _generate(self, request: ModelRequest) -> Iterator[str | Reply]:
        started = time.perf_counter()
        if request.stream:
            yield from self._streamed(request, started)
        else:
            yield self._answered(request, started)

    def _structured(self, request: ModelRequest) -> JsonReply:
        """json_schema output where the server does it; else the schema goes in the prompt
        and the reply is validated (and retried) here."""
        structured = request.schema
        assert structured is not None

        def fallback() -> JsonReply:
            hinted = replace(request, messages=_with_schema_hint(request.messages, structured),
                             schema=None)
            return complete_with_validation(
                lambda conv: self._reply(replace(hinted, messages=conv)), hinted.messages,
                structured, attempts=self.json_attempts,
            )

        if not self._json_schema_ok:
            return fallback()
        try:
            return super()._structured(request)
        except BackendHTTPError as exc:
            if not is_schema_rejection(exc):
                raise
            log.warning("%s: server rejected json_schema output (%s); falling back to "
                        "validate-and-retry", self.name, exc)
            result = fallback()
            # Remembered only once the fallback worked: a 400 for another reason
            # (a too-long prompt) must not switch structured output off for good.
            self._json_schema_ok = False
            return result

    # ------------------------------------------------------------------ internals

    def _payload(self, request: ModelRequest) -> dict[str, Any]:
        msgs = request.messages
        self._warn_if_too_long(msgs, request.max_tokens)
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [m.as_dict() for m in msgs],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.stop:
            payload["stop"] = request.stop
        if request.seed is not None:  # OpenAI, vLLM, llama.cpp's server and Ollama take it
            payload["seed"] = request.seed
        if self.extra_body:
            payload["extra_body"] = self.extra_body
        return payload

    def _answered(self, request: ModelRequest, started: float) -> Reply:
        payload = self._payload(request)
        structured = request.schema
        if structured is not None:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": structured.name,
                    "schema": structured.schema,
                    "strict": structured.strict_compatible,
                },
            }
        # A rejected response_format is an answer, not a hiccup: do not retry it.
        retry_if = (lambda e: is_transient(e) and not is_schema_rejection(e)) if structured \
            else is_transient
        response = self._with_retries(
            lambda: self._client.chat.completions.create(**payload), retry_if)
        msgs = request.messages
        try:
            choice = response.choices[0]
            text = choice.message.content or ""
            finish = choice.finish_reason or "stop"
            usage = response.usage
            prompt = usage.prompt_tokens if usage else _estimate_tokens(msgs)
            completion = usage.completion_tokens if usage else (len(text) + 3) // 4
        except (AttributeError, IndexError, TypeError, KeyError) as exc:
            raise MalformedResponse(
                f"{self.name}: {self.address} answered without a chat completion "
                f"(no choices/message in the response: {str(response)[:120]!r})"
            ) from exc
        return Reply(text, Usage(prompt or 0, completion or 0), time.perf_counter() - started,
                     self.name, finish)

    def _streamed(self, request: ModelRequest, started: float) -> Iterator[str | Reply]:
        chunks = self._open_stream(request)
        pieces: list[str] = []
        finish, usage = "stop", None
        try:
            for chunk in chunks:
                if getattr(chunk, "usage", None):
                    usage = Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0)
                for choice in chunk.choices or []:
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        pieces.append(piece)
                        yield piece
                    finish = choice.finish_reason or finish
        except LLMError:
            raise
        except Exception as exc:
            raise self._map_error(exc) from exc
        finally:
            # a caller that stops reading (ask_model's `until`) ends the request too: the
            # server stops generating once the connection closes
            close = getattr(chunks, "close", None)
            if callable(close):
                close()
        text = "".join(pieces)
        if usage is None:  # the server sent no usage: estimate
            usage = Usage(_estimate_tokens(request.messages), (len(text) + 3) // 4)
        yield Reply(text, usage, time.perf_counter() - started, self.name, finish)

    def _open_stream(self, request: ModelRequest) -> Any:
        payload = self._payload(request)
        payload["stream"] = True
        if self._stream_usage_ok:
            try:
                return self._with_retries(lambda: self._client.chat.completions.create(
                    **payload, stream_options={"include_usage": True}))
            except BackendHTTPError as exc:
                if exc.status not in (400, 422):
                    raise
                self._stream_usage_ok = False  # an older server: no usage in streams
        return self._with_retries(lambda: self._client.chat.completions.create(**payload))

    def _with_retries(self, call: Callable[[], Any],
                      retry_if: Callable[[LLMError], bool] = is_transient) -> Any:
        attempt = 0
        while True:
            try:
                return call()
            except Exception as exc:
                unreachable = self._unreachable(exc)
                if unreachable is not None:
                    raise unreachable from exc
                error = exc if isinstance(exc, LLMError) else self._map_error(exc)
                if not retry_if(error) or attempt >= self.max_retries:
                    if error is exc:
                        raise
                    raise error from exc
                delay = self.backoff_seconds * (2**attempt)
                log.warning("%s: %s; retry %d/%d in %.1fs", self.name, error, attempt + 1,
                            self.max_retries, delay)
                self._sleep(delay)
                attempt += 1

    def _unreachable(self, exc: Exception) -> ModelUnreachable | None:
        """A connection to the server could not be made at all (refused, no such host, no
        route), as opposed to one that dropped or timed out. Judged by the OS error at the
        bottom of the chain, whatever HTTP library the client wraps it in."""
        import openai

        if not isinstance(exc, openai.APIConnectionError) or \
                isinstance(exc, openai.APITimeoutError):
            return None
        cause: BaseException | None = exc.__cause__
        for _ in range(8):  # the chain is short; a bound keeps a cyclic one from looping
            if cause is None or _cannot_connect(cause):
                break
            cause = cause.__cause__ or cause.__context__
        if cause is None or not _cannot_connect(cause):
            return None
        return ModelUnreachable(self.name, self.address, str(cause) or type(cause).__name__)

    def _map_error(self, exc: Exception) -> LLMError:
        import openai

        where = f"{self.name} at {self.address}"
        if isinstance(exc, openai.APITimeoutError):
            return BackendTimeout(f"{where}: no answer within the request timeout")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return BackendUnreachable(f"cannot reach {where}: {cause}")
        if isinstance(exc, openai.APIStatusError):
            detail = _error_detail(exc)
            return BackendHTTPError(f"{where}: HTTP {exc.status_code}: {detail}", exc.status_code)
        if isinstance(exc, (ValueError, openai.APIResponseValidationError)):
            return MalformedResponse(f"{where}: the response is not valid JSON: {exc}")
        return LLMError(f"{where}: {type(exc).__name__}: {exc}")

    def _warn_if_too_long(self, msgs: list[Message], max_tokens: int) -> None:
        if self.context_limit is None:
            return
        estimate = _estimate_tokens(msgs)
        if estimate + max_tokens > self.context_limit:
            log.warning(
                "%s: the prompt (~%d tokens) plus max_tokens %d may not fit num_ctx %d; the "
                "server may cut the prompt", self.name, estimate, max_tokens, self.context_limit
            )


def _cannot_connect(error: BaseException) -> bool:
    """The OS said no connection can be made: refused, an unknown host, no route."""
    if isinstance(error, (ConnectionRefusedError, socket.gaierror)):
        return True
    return isinstance(error, OSError) and error.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH)


def _estimate_tokens(msgs: list[Message]) -> int:
    return sum((len(m.content) + 3) // 4 + 4 for m in msgs)


def _error_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return str(message)[:200]
    return str(getattr(exc, "message", exc))[:200]


def _with_schema_hint(msgs: list[Message], structured: StructuredSchema) -> list[Message]:
    """Without constrained output the model must be told the schema in the prompt."""
    return msgs + [Message("user", schema_instruction(structured))]
