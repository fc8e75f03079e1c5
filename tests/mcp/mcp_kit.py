"""`codeloop mcp` as a real subprocess, driven by the official SDK's client.

`connect(root, model)` starts `python -m codeloop mcp --root ROOT --model MODEL` with the
test's isolated environment (its own store, config and data dirs) and yields a connected
`mcp.Client`. Each test body is an async function run with `anyio.run`.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

TOOLS = {"solve", "agent", "review", "approve", "reject", "ask", "sandbox_run", "runs_list",
         "run_show"}


def server_params(roots: list[Path], model: str, store: Path) -> StdioServerParameters:
    args = ["-m", "codeloop", "mcp", "--model", model, "--store", str(store)]
    for root in roots:
        args += ["--root", str(root)]
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))


@asynccontextmanager
async def connect(root: Path | list[Path], model: str, **client_options: Any):
    roots = root if isinstance(root, list) else [root]
    params = server_params(roots, model, roots[0] / "runs.sqlite")
    async with Client(params, read_timeout_seconds=120, **client_options) as client:
        yield client


def text_of(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def structured(result) -> dict:
    """A tool's structured result (or the JSON of its text, for older shapes)."""
    assert not result.is_error, text_of(result)
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(text_of(result))


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under `directory` (the run store left out) with its bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.name.startswith("runs.sqlite")}
