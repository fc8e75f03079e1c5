"""Runs INSIDE the sandbox, on both sides of the pipe (standalone: stdlib only).

What crosses between the trusted harness and the candidate's process: plain builtin values
only (None, bool, int, float, complex, str, bytes, bytearray, range, list, tuple, dict, set,
frozenset), as pickle data whose Unpickler refuses every class but complex, bytearray, range,
set and frozenset: nothing the candidate sends can become an object with its own methods
(an `__eq__` that always says yes), so comparisons on the trusted side are honest.

Messages are framed with an 8-byte length and capped at MAX_BYTES.
"""

from __future__ import annotations

import io
import os
import pickle
import select
import time

MAX_BYTES = 16_000_000
MAX_NODES = 2_000_000  # values in one message, nested ones included
MAX_DEPTH = 200
_ALLOWED = {("builtins", n) for n in ("complex", "bytearray", "range", "set", "frozenset")}
_SCALARS = (type(None), bool, int, float, complex, str, bytes, bytearray, range)


class Unsendable(TypeError):
    """A value that cannot leave its process; the message names its type."""


class ChannelClosed(EOFError):
    """The other side ended (or sent something that is not a message)."""


class _Plain:
    """Copies a value into exact builtin types (namedtuple -> tuple, Counter -> dict,
    numpy.float64 -> float), or raises Unsendable naming what could not be carried."""

    def __init__(self) -> None:
        self.nodes = 0
        self.path: set[int] = set()

    def __call__(self, value, depth: int = 0):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Unsendable(f"a value with more than {MAX_NODES} parts")
        if depth > MAX_DEPTH:
            raise Unsendable(f"a value nested more than {MAX_DEPTH} levels deep")
        kind = type(value)
        if kind in _SCALARS:
            return value
        for base in (bool, int, float, complex, str, bytes):
            if isinstance(value, base):
                return base(value)
        if not isinstance(value, (list, tuple, dict, set, frozenset)):
            raise Unsendable(f"a {kind.__name__} object")
        if id(value) in self.path:
            raise Unsendable(f"a {kind.__name__} that contains itself")
        self.path.add(id(value))
        try:
            if isinstance(value, dict):
                return {self(k, depth + 1): self(v, depth + 1) for k, v in value.items()}
            items = [self(item, depth + 1) for item in value]
        finally:
            self.path.discard(id(value))
        for base in (tuple, set, frozenset):
            if isinstance(value, base):
                return base(items)
        return items


def plain(value):
    return _Plain()(value)


class _Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not a plain value")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("no persistent ids")


def encode(message) -> bytes:
    """Frame a message (already made plain by the caller where it holds outside values)."""
    data = pickle.dumps(message, protocol=5)
    if len(data) > MAX_BYTES:
        raise Unsendable(f"a value of {len(data)} bytes (the limit is {MAX_BYTES})")
    return len(data).to_bytes(8, "big") + data


def decode(data: bytes):
    try:
        return _Restricted(io.BytesIO(data)).load()
    except Exception as exc:  # noqa: BLE001 - any malformed data is the sender's fault
        raise ChannelClosed(f"unreadable message: {exc}") from None


def send(fd: int, message) -> None:
    data = memoryview(encode(message))
    while data:
        data = data[os.write(fd, data):]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other side closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(fd: int, deadline: float | None = None):
    """The next message; TimeoutError past `deadline` (time.monotonic())."""
    size = int.from_bytes(_read_exact(fd, 8, deadline), "big")
    if size > MAX_BYTES:
        raise ChannelClosed(f"a message of {size} bytes (the limit is {MAX_BYTES})")
    return decode(_read_exact(fd, size, deadline))
