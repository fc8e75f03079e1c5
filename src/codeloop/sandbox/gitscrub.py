"""Strip credentials from the `.git` directories of a staged workspace copy.

Sandboxed code reads the staged `.git/config` (remote URLs with tokens, `http.extraheader`,
credential helpers) just like any other file. So in the copy every git `config` under a `.git`
(the repository's, `.git/modules/*/config` of submodules, nested repositories' and worktrees'
`config.worktree`) is rewritten keeping only harmless keys, URLs lose their userinfo, and
credentials files are dropped. Configs are read with `git config --file F --list --null`
under the hardened environment of gitutil.git_env(): nothing of the repository runs.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from codeloop.gitutil import git_env

_CONFIG_NAMES = frozenset({"config", "config.worktree"})
_KEEP_EXACT = frozenset({
    "core.repositoryformatversion", "core.bare", "core.filemode", "core.logallrefupdates",
    "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.worktree",
    "user.name", "user.email",
})
_KEEP_PATTERNS = [re.compile(p) for p in (
    r"extensions\.[^.]+", r"branch\..+\.(remote|merge)", r"remote\..+\.(fetch|url)",
    r"submodule\..+\.(url|active)",
)]
_URL_KEYS = re.compile(r"(remote|submodule)\..+\.url")


def scrub_git_secrets(root: Path, snapshot: dict) -> list[str]:
    """Rewrite the git configs and drop the credentials files among the snapshot's paths
    (relative to root); the paths changed or removed."""
    touched = []
    for rel, sig in list(snapshot.items()):
        parts = rel.split("/")
        if sig[0] != "file" or ".git" not in [p.lower() for p in parts[:-1]]:
            continue
        name = parts[-1].lower()
        if "credential" in name:
            os.unlink(root / rel)
            touched.append(rel)
        elif name in _CONFIG_NAMES:
            _rewrite(root / rel)
            touched.append(rel)
    return touched


def _rewrite(path: Path) -> None:
    entries = _read_config(path)
    kept = [(k, _strip_userinfo(v) if _URL_KEYS.fullmatch(k) else v)
            for k, v in entries if _harmless(k)]
    path.write_text(_render(kept), encoding="utf-8")


def _harmless(key: str) -> bool:
    return key in _KEEP_EXACT or any(p.fullmatch(key) for p in _KEEP_PATTERNS)


def _read_config(path: Path) -> list[tuple[str, str]]:
    """(key, value) pairs; none when git cannot parse the file (it is then emptied)."""
    try:
        proc = subprocess.run(["git", "config", "--file", str(path), "--list", "--null"],
                              env=git_env(), capture_output=True, timeout=10, check=False,
                              stdin=subprocess.DEVNULL, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return []
    if proc.returncode != 0:
        return []
    out = []
    for item in proc.stdout.decode("utf-8", "replace").split("\0"):
        if item:
            key, _, value = item.partition("\n")
            out.append((key.lower() if key.count(".") < 2 else _lower_ends(key), value))
    return out


def _lower_ends(key: str) -> str:
    """Section and variable names are case-insensitive, the subsection in between is not."""
    section, rest = key.split(".", 1)
    sub, name = rest.rsplit(".", 1)
    return f"{section.lower()}.{sub}.{name.lower()}"


def _strip_userinfo(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if not parts.scheme or "@" not in parts.netloc:
        return url  # scp-like `git@host:path` carries no secret: only a user name
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _quote(value: str) -> str:
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + value.replace("\n", "\\n").replace("\t", "\\t") + '"'


def _render(entries: list[tuple[str, str]]) -> str:
    sections: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
    for key, value in entries:
        section, _, rest = key.partition(".")
        sub, _, name = rest.rpartition(".")
        sections.setdefault((section, sub or None), []).append((name, value))
    lines = []
    for (section, sub), items in sections.items():
        head = section if sub is None else f'{section} "{_quote(sub)[1:-1]}"'
        lines.append(f"[{head}]")
        lines += [f"\t{name} = {_quote(value)}" for name, value in items]
    return "\n".join(lines) + ("\n" if lines else "")
