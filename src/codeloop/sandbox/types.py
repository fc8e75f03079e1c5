"""The sandbox's value types: resource limits, the typed result of a run, its errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

LimitHit = Literal["timeout", "memory", "cpu", "output", "processes"]
Mode = Literal["rw", "ro", "cow"]


@dataclass(frozen=True)
class Limits:
    """Per-run resource limits (applied with prlimit to the sandboxed program)."""

    cpu_seconds: int = 60
    # What the whole process tree may use (the run's cgroup, else the RSS watchdog), and each
    # process's address space (RLIMIT_AS); plain Python with pytest needs ~100 MB.
    memory_mb: int = 1024
    # RLIMIT_AS when it must exceed memory_mb: V8 reserves ~10 GB of address space for each
    # WebAssembly memory and touches almost none of it. None: memory_mb.
    address_space_mb: int | None = None
    file_size_mb: int = 16  # largest file it may write; also caps how much output hits disk
    open_files: int = 256
    processes: int = 64  # processes + threads of the sandbox's uid
    output_bytes: int = 1_000_000  # stdout/stderr kept per stream; the rest is cut
    # What a run may leave for the copy-back (new/changed entries); over any: nothing copied.
    copyback_mb: int = 256  # bytes of new or changed files
    copyback_files: int = 20_000  # new or changed files, directories and links
    copyback_depth: int = 32  # directory levels of a new entry
    copyback_path_bytes: int = 1024  # length of a new entry's path inside the workspace
    copyback_seconds: int = 30  # the copy-back's own deadline

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_mb", "file_size_mb", "open_files", "processes",
                     "output_bytes", "copyback_mb", "copyback_files", "copyback_depth",
                     "copyback_path_bytes", "copyback_seconds"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1 (got {getattr(self, name)})")
        if self.address_space_mb is not None and self.address_space_mb < 1:
            raise ValueError(f"Limits.address_space_mb must be at least 1 "
                             f"(got {self.address_space_mb})")

    @property
    def address_space_bytes(self) -> int:
        return (self.address_space_mb or self.memory_mb) * 1024 * 1024


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int  # the command's exit status; 128+N when signal N ended it
    stdout: str
    stderr: str
    truncated: bool  # stdout or stderr was cut at Limits.output_bytes
    seconds: float
    limit_hit: LimitHit | None
    sandboxed: bool  # False only when the user opted into unsafe_no_sandbox
    workspace: str | None = None  # the given workspace, None for a throw-away run
    collected: dict[str, str] = field(default_factory=dict)  # files asked for with collect=
    refused: list[str] = field(default_factory=list)  # "path: reason" not copied back
    channel: str = ""  # what the program wrote to the host-opened channel fd (channel=True)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit_hit is None

    def summary(self) -> str:
        parts = [f"exit {self.exit_code}", f"{self.seconds:.2f}s"]
        if self.limit_hit:
            parts.append(f"limit hit: {self.limit_hit}")
        if self.truncated:
            parts.append("output truncated")
        if self.refused:
            shown = "; ".join(self.refused[:3]) + ("; ..." if len(self.refused) > 3 else "")
            parts.append(f"{len(self.refused)} change(s) not copied back ({shown})")
        parts.append("sandboxed" if self.sandboxed else "UNSANDBOXED (unsafe_no_sandbox)")
        return ", ".join(parts)


class SandboxError(Exception):
    """Base of the sandbox's own errors (not the sandboxed program's failures)."""


class SandboxUnavailable(SandboxError):
    """bubblewrap cannot run here; the message names the cause and the opt-out."""
