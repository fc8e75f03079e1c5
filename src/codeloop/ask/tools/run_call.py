"""`run_call`: run one call expression against the repository in codeloop's sandbox and report
what it returned, raised or printed.

The repository's code is hostile. It runs only inside the sandbox (bubblewrap, network off,
CPU, memory and wall-clock limits): the repository's text files are copied into a throw-away
workspace (`repo/`, read as the walk admitted them) and put on `sys.path` there; codeloop's own
environment (its site-packages, where the user's installed packages are) is visible read-only,
so the repository's dependencies import when they are installed. The interpreter starts
isolated (`-I`: no PYTHONPATH, no user site), so nothing in the repository runs before the call
asks for it. What comes back (through the channel fd, not stdout) is data: parsed as JSON,
every field size-capped, control characters made visible; it is never executed on the host.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from codeloop.ask.tools.walk import RepoIndex

TIMEOUT = 20.0  # seconds on the wall clock; a question must stay under a minute on 2 cores
VALUE_CAP = 600  # characters of a repr, a message or the printed output kept
MAX_REPO_BYTES = 12_000_000  # what is copied into the sandbox; past it, the .py files only
_DRIVER = "_codeloop_run_call.py"

# Runs inside the sandbox. argv: channel fd, JSON {module, expr, roots}.
DRIVER = r'''
import contextlib, importlib, io, itertools, json, os, sys, types
channel = os.fdopen(int(sys.argv[1]), "w")
spec = json.loads(sys.argv[2])
sys.path[:0] = spec["roots"]
cap = spec["cap"]
def capped(text):
    return text[:cap] + ("…" if len(text) > cap else "")
printed = io.StringIO()
out = {"status": "failed"}
try:
    module = importlib.import_module(spec["module"])
except ModuleNotFoundError as exc:
    out = {"status": "missing", "name": exc.name or "", "message": str(exc)[:cap]}
except BaseException as exc:
    out = {"status": "failed", "type": type(exc).__name__, "message": str(exc)[:cap]}
else:
    ns = dict(vars(module))
    for top in spec["names"]:
        if top not in ns:
            try:
                ns[top] = importlib.import_module(top)
            except BaseException:
                pass
    try:
        with contextlib.redirect_stdout(printed):
            value = eval(spec["expr"], ns)
            kind = type(value).__name__
            if isinstance(value, (types.GeneratorType, map, filter, zip)) or (
                    hasattr(value, "__next__") and hasattr(value, "__iter__")):
                value = list(itertools.islice(value, 50))
                kind = kind + " (iterator; its first items as a list)"
        out = {"status": "returned", "value": capped(repr(value)), "type": kind}
        if isinstance(value, str) and "\n" in value:
            out["text"] = capped(value)
    except ModuleNotFoundError as exc:
        out = {"status": "missing", "name": exc.name or "", "message": str(exc)[:cap]}
    except BaseException as exc:
        out = {"status": "raised", "type": type(exc).__name__, "message": str(exc)[:cap]}
out["stdout"] = capped(printed.getvalue())
channel.write(json.dumps(out))
channel.flush()
'''


def repo_files(index: RepoIndex, prefix: str) -> dict[str, str]:
    """The repository's text files as the sandbox's `files=` (under repo/PREFIX/): all of them
    when they fit MAX_REPO_BYTES, else the Python files alone."""
    chosen = index.files
    if sum(len(index.text(rel)) for rel in chosen) > MAX_REPO_BYTES:
        chosen = [rel for rel in index.files if rel.endswith(".py")]
    base = f"repo/{prefix}/" if prefix else "repo/"
    return {base + rel: index.text(rel) for rel in chosen}


def run_call(index: RepoIndex, module: str, expr: str, names: list[str], prefix: str = "",
             timeout: float = TIMEOUT) -> dict[str, Any]:
    """{status: returned | raised | missing | failed | timeout | unavailable, value, type,
    message, name (a missing module), stdout, text, seconds}."""
    from codeloop.sandbox import Limits, SandboxError, run_command
    from codeloop.sandbox.runner import CHANNEL_FD_ARG

    files = repo_files(index, prefix)
    files[_DRIVER] = DRIVER
    spec = {"module": module, "expr": expr, "names": names, "cap": VALUE_CAP,
            "roots": ["/workspace/repo", "/workspace/repo/src"]}
    limits = Limits(cpu_seconds=int(timeout), memory_mb=768, file_size_mb=8,
                    output_bytes=64_000, processes=32)
    try:
        result = run_command([sys.executable, "-I", _DRIVER, CHANNEL_FD_ARG, json.dumps(spec)],
                             files=files, timeout=timeout, limits=limits, channel=True)
    except SandboxError as exc:
        return {"status": "unavailable", "message": clean(str(exc).splitlines()[0])}
    if result.limit_hit == "timeout":
        return {"status": "timeout", "message": f"no result within {timeout:.0f} s",
                "seconds": round(result.seconds, 2)}
    found = parse_channel(result.channel)
    if found is None:
        tail = result.stderr.strip().splitlines()[-1:] or [result.summary()]
        found = {"status": "failed", "message": clean(tail[0])}
    found["seconds"] = round(result.seconds, 2)
    return found


_FIELDS = ("status", "value", "type", "message", "name", "stdout", "text")
_STATUSES = {"returned", "raised", "missing", "failed"}


def parse_channel(raw: str) -> dict[str, Any] | None:
    """The driver's JSON, every field a capped, visible string; None when it is not that."""
    try:
        data = json.loads(raw[: VALUE_CAP * 12])
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("status") not in _STATUSES:
        return None
    return {key: clean(str(data[key])) for key in _FIELDS if key in data}


def clean(text: str, cap: int = VALUE_CAP) -> str:
    """Capped; control characters (but newline and tab) and backticks made visible, so the
    text cannot break out of its place in a prompt or an answer."""
    out = []
    for ch in text[:cap]:
        if ch in "\n\t":
            out.append(ch)
        elif ch == "`":
            out.append("'")
        elif ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 or 0x202A <= ord(ch) <= 0x202E \
                or 0x2066 <= ord(ch) <= 0x2069:
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out) + ("…" if len(text) > cap else "")
