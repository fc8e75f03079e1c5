"""What a project `codeloop.toml` (the current directory's) may change: only tightenings.

The current directory is often a workspace the model writes to, so its file is treated as
hostile (ARCHITECTURE.md, principle 13). It may only move an allow-listed setting in the safe
direction; anything else (turning the sandbox off, raising a limit, choosing the model, a base
URL, a key, the store, the thread count) comes only from the user's config dir, the
environment or a flag. A refused key is ignored with a warning rather than an error: safety
holds either way, and an error would let a file the model wrote stop every later command in
that directory. MCP servers (`[mcp_servers]`, or `mcp` / `mcpServers` as other tools spell
it) are refused outright: a server is a program started on the host.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codeloop.mcp_client.settings import SECTION_ALIASES as MCP_SECTIONS

MCP_REFUSED = ("a project file may not name MCP servers (they start programs on the host): "
               "name them in your user config")


@dataclass(frozen=True)
class IgnoredSetting:
    key: str
    value: Any
    path: str
    reason: str

    def warning(self) -> str:
        return f"{self.path}: ignored `{self.key}` ({self.reason})"


def _not_higher(new: Any, current: Any) -> bool:
    return new <= current


def _only_false(new: Any, _current: Any) -> bool:
    return new is False


# key -> (test that the new value is no looser than the current one, how to say the rule)
PROJECT_RULES: dict[str, tuple[Callable[[Any, Any], bool], str]] = {
    "sandbox_timeout": (_not_higher, "only lower"),
    "max_tokens": (_not_higher, "only lower"),
    "request_timeout": (_not_higher, "only lower"),
    "max_retries": (_not_higher, "only lower"),
    "unsafe_no_sandbox": (_only_false, "only false"),
}


def project_rules_text() -> str:
    return ", ".join(f"{key} ({how})" for key, (_ok, how) in PROJECT_RULES.items())


def read_project_file(path: Path) -> tuple[dict[str, Any], list[IgnoredSetting]]:
    """The file's key/value pairs, or none (with a warning) when it is not usable TOML."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, [IgnoredSetting("*", None, str(path), f"the file is not valid TOML: {exc}")]
    section = data.get("codeloop", data)
    if not isinstance(section, dict):
        return {}, [IgnoredSetting("codeloop", section, str(path), "not a table")]
    section, ignored = dict(section), []
    for key in MCP_SECTIONS:  # inside the codeloop table or beside it: never read
        for table in (section, data):
            if key in table:
                raw = table.pop(key) if table is section else table[key]
                names = sorted(raw) if isinstance(raw, dict) else raw
                ignored.append(IgnoredSetting(key, names, str(path), MCP_REFUSED))
                break
    return section, ignored


def tighten(
    current: Any,
    project: dict[str, Any],
    path: str,
    validate: Callable[[str, Any], Any],
) -> tuple[dict[str, Any], list[IgnoredSetting]]:
    """Split the project's pairs into the accepted ones and the ignored ones.

    current: the settings the lower layers (defaults, user file) give; validate(key, value)
    returns the value converted to the setting's type or raises ValueError."""
    accepted: dict[str, Any] = {}
    ignored: list[IgnoredSetting] = []
    for key, raw in project.items():
        rule = PROJECT_RULES.get(key)
        if rule is None:
            why = ("a project file may not set it: set it in your user config, a CODELOOP_* "
                   "variable or a flag" if hasattr(current, key) else "unknown setting")
            ignored.append(IgnoredSetting(key, raw, path, why))
            continue
        try:
            value = validate(key, raw)
        except ValueError as exc:
            ignored.append(IgnoredSetting(key, raw, path, f"invalid value: {exc}"))
            continue
        ok, how = rule
        if not ok(value, getattr(current, key)):
            why = (f"a project file may only lower it (effective value "
                   f"{getattr(current, key)!r})" if how == "only lower"
                   else "a project file may only set it to false")
            ignored.append(IgnoredSetting(key, raw, path, why))
            continue
        accepted[key] = value
    return accepted, ignored
