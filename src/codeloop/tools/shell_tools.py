"""Running a shell command in the sandbox, with the workspace mounted and no network."""

from __future__ import annotations

from codeloop.tools.base import ToolError, tool
from codeloop.tools.workspace import Workspace

MAX_STREAM_CHARS = 6_000
MAX_REFUSED_SHOWN = 10


def _tail(text: str) -> str:
    """The end of a long output: errors and test summaries are at the end."""
    if len(text) <= MAX_STREAM_CHARS:
        return text
    return f"... ({len(text) - MAX_STREAM_CHARS} characters cut)\n" + text[-MAX_STREAM_CHARS:]


@tool
def run_bash_command(ws: Workspace, command: str, timeout: int | None = None) -> str:
    """Run a bash command in a sandbox (the workspace is the working directory; no network),
    such as "python -m pytest -q" or "python script.py". Shows the exit code and output.

    Args:
        command: the bash command line
        timeout: seconds before it is stopped; null for the default
    """
    from codeloop.sandbox import SandboxError, run_command

    if not command.strip():
        raise ToolError("the command is empty")
    seconds = ws.shell_timeout if timeout is None else float(timeout)
    if seconds <= 0:
        raise ToolError(f"timeout must be positive (got {timeout})")
    seconds = min(seconds, ws.max_shell_timeout)
    try:
        result = run_command(["bash", "-c", command], workspace=ws.root, mode=ws.shell_mode,
                             timeout=seconds, unsafe_no_sandbox=ws.unsafe_no_sandbox)
    except (SandboxError, ValueError) as exc:
        raise ToolError(f"the sandbox could not run the command: {exc}") from exc
    parts = [f"exit code: {result.exit_code}"]
    if result.limit_hit == "timeout":
        parts[0] += f" (stopped: it ran past the {seconds:g}s timeout)"
    elif result.limit_hit:
        parts[0] += f" (stopped: {result.limit_hit} limit hit)"
    if ws.shell_mode == "ro":
        parts.append("(the workspace is mounted read-only here: file changes fail)")
    parts.append("stdout:\n" + (_tail(result.stdout).rstrip() or "(empty)"))
    if result.stderr.strip():
        parts.append("stderr:\n" + _tail(result.stderr).rstrip())
    if result.truncated:
        parts.append("(output was longer than the sandbox keeps; it was cut)")
    if result.refused:
        shown = result.refused[:MAX_REFUSED_SHOWN]
        more = len(result.refused) - len(shown)
        parts.append("not copied back to the workspace (files the host would run or obey):\n"
                     + "\n".join(f"- {item}" for item in shown)
                     + (f"\n- ... and {more} more" if more else ""))
    if not result.sandboxed:
        parts.append("(ran WITHOUT the sandbox: unsafe_no_sandbox is on)")
    return "\n".join(parts)
