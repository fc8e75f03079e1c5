"""Where an API request may point codeloop: workspaces (and model files) under `--root` dirs.

A request is remote input: its paths are resolved (symlinks followed, `..` folded) and must
lie under one of the server's roots by `is_relative_to`, never a string prefix (`/ws` vs
`/ws-evil`). `~`, `$VAR` and NUL bytes are not expanded or accepted.
"""

from __future__ import annotations

from pathlib import Path

from codeloop.path_limits import too_long


class PathOutsideRoots(Exception):
    """A path that resolves outside every --root (HTTP 403)."""


class BadPath(Exception):
    """A path that is malformed, missing, or not the kind asked for (HTTP 400)."""


class Roots:
    def __init__(self, roots: list[Path]) -> None:
        if not roots:
            raise ValueError("the server needs at least one --root directory")
        self.dirs = [Path(r).resolve(strict=True) for r in roots]

    def resolve(self, raw: str, *, kind: str = "workspace", want_dir: bool = True,
                must_exist: bool = True) -> Path:
        """`raw` resolved, checked under a root, existing, a directory (or a file).
        `must_exist=False`: a directory to be created (nothing may exist there but one)."""
        text = str(raw)
        if not text.strip() or "\x00" in text:
            raise BadPath(f"the {kind} path is empty or holds a NUL byte")
        if text.startswith("~") or "$" in text:
            raise BadPath(f"the {kind} path {text!r}: give it without ~ or $VARIABLES")
        candidate = Path(text)
        if not candidate.is_absolute():
            candidate = self.dirs[0] / candidate  # relative paths are relative to the first root
        if (why := too_long(candidate)) is not None:  # ENAMETOOLONG before any system call
            raise BadPath(f"the {kind} path is {why}")
        try:
            resolved = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # a symlink loop
            raise BadPath(f"the {kind} path {text!r} cannot be resolved: {exc}") from None
        if not any(resolved.is_relative_to(root) for root in self.dirs):
            raise PathOutsideRoots(f"the {kind} {text!r} is outside the server's --root "
                                   f"directories")
        try:
            return self._checked(resolved, text, kind, want_dir, must_exist)
        except OSError as exc:  # a link inside that resolves to a name too long, EACCES...
            raise BadPath(f"the {kind} {text!r}: {exc.strerror or exc}") from None

    @staticmethod
    def _checked(resolved: Path, text: str, kind: str, want_dir: bool,
                 must_exist: bool) -> Path:
        if not must_exist:
            if resolved.exists() and not resolved.is_dir():
                raise BadPath(f"the {kind} {text!r} exists and is not a directory")
            return resolved
        if want_dir and not resolved.is_dir():
            raise BadPath(f"the {kind} {text!r} is not an existing directory")
        if not want_dir and not resolved.is_file():
            raise BadPath(f"the {kind} {text!r} is not an existing file")
        return resolved

    def contains(self, recorded: str) -> bool:
        """Whether a path a run recorded (absolute) resolves, now, under a root: the rule a
        new request meets, held for every later access to the run. Anything else (relative,
        unresolvable, a NUL byte) is not contained."""
        text = str(recorded)
        if "\x00" in text or not Path(text).is_absolute():
            return False
        try:
            resolved = Path(text).resolve(strict=False)
        except (OSError, RuntimeError, ValueError):
            return False
        return any(resolved.is_relative_to(root) for root in self.dirs)

    def describe(self) -> list[str]:
        return [str(d) for d in self.dirs]
