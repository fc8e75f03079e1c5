"""The workspace the tools act on: a home directory, with every file access going through the
sandbox's path guard, and the settings the shell and git tools need."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codeloop.sandbox.host_policy import GIT_DIR
from codeloop.sandbox.pathguard import HostFileRefused, PathGuard, PathRefused, PathTooLong
from codeloop.tools.base import ToolError

SKIPPED_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache",
                ".pytest_cache", ".ruff_cache", ".tox", ".idea", ".eggs"}
MAX_WALK_FILES = 20_000


@dataclass(frozen=True)
class Workspace:
    root: Path
    shell_mode: Literal["rw", "ro", "cow"] = "rw"
    shell_timeout: float = 30.0
    max_shell_timeout: float = 300.0
    unsafe_no_sandbox: bool = False

    @classmethod
    def at(cls, root: str | Path, **options) -> Workspace:
        path = Path(root).expanduser().resolve()
        if not path.is_dir():
            raise ToolError(f"the workspace {path} is not a directory")
        return cls(path, **options)

    def with_shell_mode(self, mode: Literal["rw", "ro", "cow"]) -> Workspace:
        return Workspace(self.root, mode, self.shell_timeout, self.max_shell_timeout,
                         self.unsafe_no_sandbox)

    # ------------------------------------------------------------------ paths
    def rel(self, path: str) -> str:
        """The path as the model should write it (relative, normalised) for messages."""
        try:
            return self._guard().rel(path)
        except PathRefused:
            return path

    def _guard(self) -> PathGuard:
        return PathGuard(self.root)

    # ------------------------------------------------------------------ reading
    def read_bytes(self, path: str) -> bytes:
        guard = self._guard()
        try:
            return guard.read_bytes(path)
        except PathRefused as exc:
            raise ToolError(_refused(exc)) from exc
        except FileNotFoundError as exc:
            raise ToolError(self._missing(path)) from exc
        except IsADirectoryError as exc:
            raise ToolError(f"{self.rel(path)} is a directory; use list_files to see "
                            "what is in it") from exc
        except PermissionError as exc:
            raise ToolError(f"permission denied reading {self.rel(path)}") from exc
        except NotADirectoryError as exc:
            raise ToolError(self._missing(path)) from exc

    def read_text(self, path: str) -> str:
        data = self.read_bytes(path)
        if b"\0" in data[:8192]:
            raise ToolError(f"{self.rel(path)} is a binary file ({len(data)} bytes); "
                            "only text files can be read")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(f"{self.rel(path)} is not UTF-8 text (bad byte at offset "
                            f"{exc.start}); only text files can be read") from exc

    def read_text_for_search(self, path: str, max_bytes: int) -> str | None:
        """Text of a file for searching, or None for binary, huge or unreadable files."""
        try:
            data = self.read_bytes(path)
        except ToolError:
            return None
        if len(data) > max_bytes or b"\0" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace")

    def is_file(self, path: str) -> bool:
        try:
            self.read_bytes(path)
        except ToolError:
            return False
        return True

    def _missing(self, path: str) -> str:
        name = Path(self.rel(path)).name
        similar = [f for f in self.walk_files(".") if Path(f).name == name][:5]
        hint = f" Files with that name: {', '.join(similar)}." if similar else (
            " To create it, use write_file; list_files shows the files that exist.")
        return f"{self.rel(path)} does not exist.{hint}"

    def walk_files(self, path: str = ".") -> list[str]:
        """Regular files under `path`, relative to the root, sorted; skips VCS, caches,
        virtual environments and symlinks."""
        guard = self._guard()
        try:
            start = guard.resolve(path)
        except PathRefused as exc:
            raise ToolError(_refused(exc)) from exc
        if any(part.lower() == GIT_DIR for part in start.relative_to(self.root).parts):
            raise ToolError(f"{self.rel(path)} is git metadata; use the git tools")
        if not start.exists():
            raise ToolError(f"{self.rel(path)} does not exist")
        if start.is_file():
            return [start.relative_to(self.root).as_posix()]
        found: list[str] = []
        stack = [start]
        while stack and len(found) < MAX_WALK_FILES:
            directory = stack.pop()
            try:
                entries = sorted(directory.iterdir())
            except OSError:
                continue
            for entry in entries:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    if entry.name.lower() not in SKIPPED_DIRS and not entry.name.endswith(
                            ".egg-info"):
                        stack.append(entry)
                elif entry.is_file():
                    found.append(entry.relative_to(self.root).as_posix())
        return sorted(found)

    # ------------------------------------------------------------------ writing
    def write_text(self, path: str, content: str) -> bool:
        """Write (temp file + rename, parents created); True when the file is new."""
        guard = self._guard()
        try:
            existed = guard.resolve(path).exists()
            guard.write_bytes(path, content.encode("utf-8"))
        except PathRefused as exc:
            raise ToolError(_refused(exc)) from exc
        except IsADirectoryError as exc:
            raise ToolError(f"{self.rel(path)} is a directory") from exc
        except PermissionError as exc:
            raise ToolError(f"permission denied writing {self.rel(path)}") from exc
        return not existed

    def delete(self, path: str) -> None:
        guard = self._guard()
        try:
            guard.delete(path)
        except PathRefused as exc:
            raise ToolError(_refused(exc)) from exc
        except FileNotFoundError:
            return


def _refused(exc: PathRefused) -> str:
    if isinstance(exc, (HostFileRefused, PathTooLong)):  # not about leaving the workspace
        return str(exc)
    return f"{exc}; file tools only work inside the workspace"
