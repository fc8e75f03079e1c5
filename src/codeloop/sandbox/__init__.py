"""Runs untrusted code: bubblewrap + rlimits + a wall clock (runner), test running on candidate
code (testrun), and safe workspace file access (pathguard)."""

from codeloop.sandbox.runner import run_command, run_python
from codeloop.sandbox.types import (
    LimitHit,
    Limits,
    Mode,
    SandboxError,
    SandboxResult,
    SandboxUnavailable,
)

__all__ = [
    "LimitHit", "Limits", "Mode", "SandboxError", "SandboxResult", "SandboxUnavailable",
    "run_command", "run_python",
]
