# ruff: noqa: S102, BLE001 - it exists to exec untrusted code and report any failure
"""Runs INSIDE the sandbox as the candidate's own process (standalone: stdlib only).

    python worker.py CODE_FILE MODULE_NAME REQUEST_FD REPLY_FD

Executes the candidate's code as module MODULE_NAME, tells the trusted harness its top-level
names, then serves calls: ("call", name, args, kwargs) -> ("value", result, changed_args)
| ("iter", items, truncated) | ("raise", type names, args, message, line) | ("unsendable", ..).
Nothing here is trusted: the harness treats every reply as a value the candidate chose.
This process never holds the result channel nor the tests.
"""

from __future__ import annotations

import sys
import traceback
import types

import codec

MAX_ITEMS = 100_000  # items taken from a returned iterator or generator


def error_line(exc: BaseException, filename: str) -> int | None:
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    return line


def describe(exc: BaseException) -> str:
    text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def raised(exc: BaseException, filename: str) -> tuple:
    names = [cls.__name__ for cls in type(exc).__mro__]  # the harness maps them to builtins
    try:
        args = codec.plain(exc.args)
    except Exception:
        args = None
    try:
        message = str(exc)
    except Exception:
        message = ""
    return ("raise", names, args, message[:2000], error_line(exc, filename))


def describe_names(module: types.ModuleType) -> dict:
    """What the trusted side may use: callables by name, plain values, stdlib modules."""
    names = {}
    for name, value in vars(module).items():
        if name.startswith("__"):
            continue
        if isinstance(value, types.ModuleType):
            names[name] = ("module", value.__name__)
        elif callable(value):
            names[name] = ("callable", None)
        else:
            try:
                names[name] = ("value", codec.plain(value))
            except Exception:
                names[name] = ("opaque", type(value).__name__)
    return names


def load(code_file: str, module_name: str) -> tuple[types.ModuleType | None, tuple]:
    module = types.ModuleType(module_name)
    module.__file__ = code_file
    sys.modules[module_name] = module
    try:
        with open(code_file, encoding="utf-8") as fh:
            source = fh.read()
        exec(compile(source, code_file, "exec"), module.__dict__)
    except BaseException as exc:  # SyntaxError, ImportError, SystemExit, ...
        line = error_line(exc, code_file)
        where = f" at line {line}" if line else ""
        return None, ("load_error", f"{describe(exc)}{where}", line)
    return module, ("loaded", describe_names(module))


def call(module: types.ModuleType, name: str, args: list, kwargs: dict, code_file: str):
    try:
        result = getattr(module, name)(*args, **kwargs)
        if isinstance(result, types.GeneratorType) or hasattr(type(result), "__next__"):
            items = []
            for item in result:
                if len(items) == MAX_ITEMS:
                    return ("iter", codec.plain(items), True)
                items.append(item)
            return ("iter", codec.plain(items), False)
        changed = [(i, codec.plain(a)) for i, a in enumerate(args)
                   if isinstance(a, (list, dict, set, bytearray))]
        return ("value", codec.plain(result), changed)
    except codec.Unsendable as exc:
        return ("unsendable", str(exc))
    except BaseException as exc:
        return raised(exc, code_file)


def main() -> None:
    code_file, module_name, request_fd, reply_fd = sys.argv[1:5]
    request_fd, reply_fd = int(request_fd), int(reply_fd)
    sys.path.insert(0, ".")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    module, reply = load(code_file, module_name)
    codec.send(reply_fd, reply)
    if module is None:
        return
    while True:
        try:
            request = codec.receive(request_fd)
        except codec.ChannelClosed:
            return
        _, name, args, kwargs = request
        reply = call(module, name, args, kwargs, code_file)
        try:
            codec.send(reply_fd, reply)
        except codec.Unsendable as exc:
            codec.send(reply_fd, ("unsendable", str(exc)))


if __name__ == "__main__":
    main()
