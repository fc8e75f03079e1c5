"""The one seam to language models: messages, replies, usage, errors and the LLM protocol."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypedDict, Unpack, runtime_checkable

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


def system(text: str) -> Message:
    return Message("system", text)


def user(text: str) -> Message:
    return Message("user", text)


def assistant(text: str) -> Message:
    return Message("assistant", text)


class TokenTotal:
    """`total_tokens` for a record of prompt and completion tokens (Usage, UsageRecord)."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Usage(TokenTotal):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True)
class Reply:
    text: str
    usage: Usage
    seconds: float
    model: str
    finish_reason: str = "stop"


@dataclass(frozen=True)
class JsonReply:
    """A structured reply: `data` is valid against the schema the caller asked for."""

    data: Any
    reply: Reply
    attempts: int = 1


MessagesLike = list[Message] | list[dict[str, str]]


def to_messages(messages: MessagesLike) -> list[Message]:
    return [m if isinstance(m, Message) else Message(m["role"], m["content"]) for m in messages]


class JsonOptions(TypedDict, total=False):
    """The keyword options of `complete_json` (their defaults: backend.ModelRequest)."""

    max_tokens: int
    temperature: float


class CompleteOptions(JsonOptions, total=False):
    """The keyword options of `complete` and `stream`."""

    stop: list[str] | None
    seed: int | None  # a sampled reply that can be drawn again (None: a fresh one)


@runtime_checkable
class LLM(Protocol):
    """What every backend offers. `name` is the spec string it was built from."""

    name: str

    def complete(self, messages: MessagesLike, **options: Unpack[CompleteOptions]) -> Reply: ...

    def complete_json(self, messages: MessagesLike, schema: dict[str, Any] | type,
                      **options: Unpack[JsonOptions]) -> JsonReply: ...

    def stream(self, messages: MessagesLike,
               **options: Unpack[CompleteOptions]) -> Iterator[str | Reply]:
        """Yields text pieces, then the final Reply as the last item."""
        ...


def forget_prompt_cache(llm: LLM) -> None:
    """Start a task from an empty prompt cache where the backend keeps one (LocalLLM), so its
    replies do not depend on the tasks before it. An LLM without the method (a test double) has
    no cache to forget."""
    forget = getattr(llm, "forget_prompt_cache", None)
    if callable(forget):
        forget()


# ---------------------------------------------------------------- errors


class LLMError(Exception):
    """Base of every model-layer error; the message is meant for the user."""


class BackendUnreachable(LLMError):
    pass


class BackendTimeout(LLMError):
    pass


class BackendHTTPError(LLMError):
    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class ContextOverflow(LLMError):
    def __init__(self, message: str, prompt_tokens: int = 0, limit: int = 0):
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.limit = limit


class InvalidStructuredOutput(LLMError):
    """No reply valid under the schema. `usage` is what the failed attempts cost, so that a
    caller's token count stays true."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage if usage is not None else Usage()


class ScriptExhausted(LLMError):
    pass


class ModelNotAvailable(LLMError):
    """The model's files are missing, incomplete or fail verification."""


class UnknownModelSpec(LLMError):
    pass


class RealModelForbidden(LLMError):
    """This run (a test run) forbids calls to real models; see codeloop.llm.guard."""


class MalformedResponse(LLMError):
    """The backend answered, but not with the response shape its API promises."""


TRANSIENT_ERRORS: tuple[type[LLMError], ...] = (BackendUnreachable, BackendTimeout)


class ModelUnreachable(Exception):
    """Nothing answers at the model's address (connection refused, no such host): no job can
    do anything without its model, so every job stops at once with this one line.

    Deliberately not an LLMError: the jobs catch LLMError where one failed call is a note
    and the work goes on (a stopped agent turn, a retried build task, a refinement round);
    an unreachable model must pass through all of them rather than be retried by each."""

    def __init__(self, name: str, address: str, reason: str) -> None:
        super().__init__(f"cannot reach the model {name} at {address}: {reason} (is its "
                         "server running, and is the URL right?)")
        self.name, self.address, self.reason = name, address, reason

