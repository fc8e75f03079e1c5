"""`sandbox_run`: a command in codeloop's sandbox, exactly as `codeloop sandbox run` and the
jobs run code (bubblewrap, no network, limits; sandbox/runner.py). The workspace, when given,
must lie under the roots; whether the sandbox may be skipped is the user's own setting
(`unsafe_no_sandbox`), never an argument."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from codeloop.mcp.access import ClientRoots, check_path
from codeloop.mcp.errors import ToolError

SANDBOX_DOC = ("Run a command (argv list) in codeloop's sandbox: no network, resource "
               "limits, the workspace (a directory under the roots; default a throw-away "
               "one) at /workspace, mode rw, ro or cow (a throw-away copy).")
Command = Annotated[list[Annotated[str, Field(max_length=20_000)]],
                    Field(min_length=1, max_length=200, description="argv, e.g. "
                          "[\"python\", \"-c\", \"print(1)\"]")]


class SandboxOutput(BaseModel):
    exit_code: int
    stdout: str = Field(description="Hidden characters shown as \\xNN escapes")
    stderr: str
    truncated: bool
    seconds: float
    limit_hit: str | None
    sandboxed: bool
    refused: list[str] = Field(default_factory=list, description="What was not copied back")
    summary: str


def register(server: Any, state: Any) -> None:
    async def sandbox_run(
        command: Command,
        workspace: Annotated[str | None, Field(max_length=4096)] = None,
        mode: Literal["rw", "ro", "cow"] = "rw",
        timeout: Annotated[float | None, Field(gt=0, le=600)] = None,
        ctx: Context = None, roots: ClientRoots = None,
    ) -> SandboxOutput:
        import anyio

        from codeloop.sandbox import SandboxError, run_command
        from codeloop.textsafe import printable

        where = str(check_path(state, workspace, roots)) if workspace else None
        try:
            result = await anyio.to_thread.run_sync(lambda: run_command(
                list(command), workspace=where, mode=mode,
                timeout=timeout or state.settings.sandbox_timeout,
                unsafe_no_sandbox=state.settings.unsafe_no_sandbox))
        except (SandboxError, ValueError) as exc:
            raise ToolError(str(exc).splitlines()[0] if str(exc) else "the sandbox failed") \
                from None
        return SandboxOutput(
            exit_code=result.exit_code, stdout=printable(result.stdout),
            stderr=printable(result.stderr), truncated=result.truncated,
            seconds=round(result.seconds, 3), limit_hit=result.limit_hit,
            sandboxed=result.sandboxed, refused=list(result.refused),
            summary=result.summary())

    server.add_tool(sandbox_run, name="sandbox_run", description=SANDBOX_DOC)
