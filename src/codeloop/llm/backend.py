"""The LLM protocol implemented once, over one request method per backend.

A backend subclasses `BackendLLM` and writes `_generate(request)`: it yields text pieces
(only when `request.stream`) and then one final `Reply`. `complete`, `complete_json` and
`stream` are built here on top of it, and every request passes the real-model guard here,
so no backend can forget it. A backend with its own structured-output policy (a server
fallback, no retries) overrides `_structured`; the default asks with the schema attached
and validates, retrying up to `json_attempts` times.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Unpack

from codeloop.llm.base import (
    CompleteOptions,
    JsonOptions,
    JsonReply,
    MalformedResponse,
    Message,
    MessagesLike,
    Reply,
    to_messages,
)
from codeloop.llm.guard import check_real_models_allowed
from codeloop.llm.schema import StructuredSchema, complete_with_validation, to_structured


@dataclass(frozen=True)
class ModelRequest:
    """One call to a model. `schema` set: the backend should constrain the reply to it."""

    messages: list[Message]
    max_tokens: int = 512
    temperature: float = 0.0
    stop: list[str] | None = None
    schema: StructuredSchema | None = None
    stream: bool = False
    seed: int | None = None  # a sampled reply that can be drawn again (None: a fresh one)


def _request(messages: MessagesLike, options: Mapping[str, Any], allowed: type,
             **fixed: Any) -> ModelRequest:
    """The request for one protocol call; an option the call does not take is a TypeError,
    as with any keyword argument."""
    unknown = sorted(set(options) - allowed.__required_keys__ - allowed.__optional_keys__)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    return ModelRequest(to_messages(messages), **options, **fixed)


class BackendLLM(ABC):
    """Base of every backend. `name` is the spec it was built from; `address` is where its
    requests go (None in process), which the guard matches against listed stub servers."""

    name: str
    address: str | None = None
    # False only for backends that never reach a model (the scripted one).
    calls_real_model: ClassVar[bool] = True
    json_attempts: ClassVar[int] = 3

    @abstractmethod
    def _generate(self, request: ModelRequest) -> Iterator[str | Reply]:
        """Yield text pieces (streaming requests only), then the final Reply."""

    def forget_prompt_cache(self) -> None:
        """A task's first call starts from nothing this process cached from earlier calls.
        Backends without such a cache (servers, the scripted model) have nothing to do."""

    # ------------------------------------------------------------------ LLM protocol

    def complete(self, messages: MessagesLike, **options: Unpack[CompleteOptions]) -> Reply:
        return self._reply(_request(messages, options, CompleteOptions))

    def complete_json(self, messages: MessagesLike, schema: dict[str, Any] | type,
                      **options: Unpack[JsonOptions]) -> JsonReply:
        return self._structured(
            _request(messages, options, JsonOptions, schema=to_structured(schema)))

    def stream(self, messages: MessagesLike,
               **options: Unpack[CompleteOptions]) -> Iterator[str | Reply]:
        """Yields text pieces, then the final Reply as the last item."""
        yield from self._run(_request(messages, options, CompleteOptions, stream=True))

    # ------------------------------------------------------------------ shared path

    def _run(self, request: ModelRequest) -> Iterator[str | Reply]:
        if self.calls_real_model:
            check_real_models_allowed(self.name, self.address)
        yield from self._generate(request)

    def _reply(self, request: ModelRequest) -> Reply:
        final: str | Reply | None = None
        for final in self._run(request):
            pass
        if not isinstance(final, Reply):
            raise MalformedResponse(f"{self.name}: the backend ended without a reply")
        return final

    def _structured(self, request: ModelRequest) -> JsonReply:
        assert request.schema is not None
        return complete_with_validation(
            lambda conversation: self._reply(replace(request, messages=conversation)),
            request.messages, request.schema, attempts=self.json_attempts,
        )
