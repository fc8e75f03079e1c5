"""The one executor every fan-out goes through (principle 14): build tasks now, bench problems
and server runs next. A unit is a plain function of serialisable inputs; `submit` gives a
`concurrent.futures.Future` of its result.

`LocalExecutor` is a thread pool (the default: units mostly wait on the model, git and the
sandbox, all outside the GIL). A distributed engine (Ray) goes behind the same protocol when
one machine is not enough; nothing here is a scheduler or a queue of our own.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol, Self, TypeVar, runtime_checkable

T = TypeVar("T")


@runtime_checkable
class Executor(Protocol):
    """Runs units, at most `max_workers` at once."""

    max_workers: int

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]: ...

    def shutdown(self, wait: bool = True, *, cancel_pending: bool = False) -> None: ...


class LocalExecutor:
    """A thread pool behind the Executor protocol; a context manager that shuts it down."""

    def __init__(self, max_workers: int, name: str = "codeloop") -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1 (got {max_workers})")
        self.max_workers = max_workers
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=name)

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_pending: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_pending)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown(wait=True, cancel_pending=True)


def local_executor(max_workers: int) -> Executor:
    """The default executor for `max_workers` units at once."""
    return LocalExecutor(max_workers)
