"""How every git command codeloop runs on the host is made safe to run in a workspace that
holds model-written files: the one hardening gitutil.git and agent/snapshots both use.

What a work tree can make git execute, and what shuts each off:

- hooks, fsmonitor, pager, editor, credential helpers, ssh: fixed `-c` settings below, and an
  environment without system or global config (only the repository's own config is read);
- submodules and nested repositories (a `lib/.git` replaced by a hostile repository, a
  `gitdir: ../payload` file, an embedded `sub/.git` committed as a gitlink): git would run
  `git status` inside them, with *their* config and attributes. Submodule recursion is off
  (`-c submodule.recurse=false`, `diff.ignoreSubmodules=all`, `status.submoduleSummary=false`,
  `protocol.file.allow=never`, and `--ignore-submodules=all` added to every status/diff), so
  git never enters them;
- filter, diff and merge drivers named by a `.gitattributes` the model wrote (`* filter=x`)
  and defined in the repository's config. git 2.39 has no `--attr-source`, in-tree
  attributes beat `core.attributesFile`, and writing `$GIT_DIR/info/attributes` would change
  the user's repository (and race with their own git). What we can see completely is the
  other half: a driver only runs when the config git reads defines it. So before each command
  the driver names defined in that config are listed (`git config --list --name-only`, which
  follows includes) and each one's commands are overridden with empty ones on the command
  line, which wins over every config file. An empty filter does nothing (measured: the
  content passes through unchanged, and `required=false` keeps git from failing); an empty
  diff command, textconv or merge driver makes git fail with "cannot run" instead of running
  anything (fail closed). Cost: one `git config` call (~2 ms) per command.
- special files (a FIFO, a device) as the config, an include or an excludes file: git would
  block on them; git_config_guard refuses the repository before git runs
  (UnsafeGitConfig), and a config listing that does not finish in time fails closed.
"""

from __future__ import annotations

import os
import subprocess

from codeloop.git_config_guard import UnsafeGitConfig, check_repository

# Settings that stop a repository's config from running programs, and keep git quiet.
SAFE_CONFIG = (
    "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat", "core.editor=true",
    "core.askPass=", "credential.helper=", "core.sshCommand=false", "gc.auto=0",
    "commit.gpgSign=false", "tag.gpgSign=false", "init.defaultBranch=main",
    "advice.detachedHead=false", "core.autocrlf=false", "core.attributesFile=/dev/null",
    "diff.external=", "sequence.editor=true",
    # Never enter a submodule or an embedded repository (its config is the attacker's).
    "submodule.recurse=false", "diff.ignoreSubmodules=all", "status.submoduleSummary=false",
    "fetch.recurseSubmodules=false", "push.recurseSubmodules=no", "protocol.file.allow=never",
)
# Subcommands that look into submodules unless told not to.
_SUBMODULE_FLAG_COMMANDS = frozenset({"status", "diff"})
IGNORE_SUBMODULES = "--ignore-submodules=all"
# Driver keys that name a program, per config section; each gets an empty value.
_DRIVER_KEYS = {
    "filter": ("clean", "smudge", "process"),
    "diff": ("command", "textconv"),
    "merge": ("driver",),
}


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment: no system or global config, no prompts, no optional locks."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {
        **keep,
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true", "GCM_INTERACTIVE": "never", "GIT_EDITOR": "true",
        "GIT_PAGER": "cat", "LC_ALL": "C", **(extra or {}),
    }


def _config_flags(items: tuple[str, ...] | list[str]) -> list[str]:
    flags: list[str] = []
    for item in items:
        flags += ["-c", item]
    return flags


def defined_drivers(cwd: os.PathLike | str) -> list[tuple[str, str]]:
    """(section, name) of every filter/diff/merge driver the repository's config defines."""
    try:
        proc = subprocess.run(["git", *_config_flags(SAFE_CONFIG), "config", "--null",
                               "--name-only", "--list"], cwd=cwd, env=git_env(),
                              capture_output=True, timeout=30, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:  # fail closed: git would read the same config next
        raise UnsafeGitConfig(f"{cwd}: git could not list its config within 30 s") from None
    except OSError:
        return []
    found: list[tuple[str, str]] = []
    for key in proc.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
        section, _, rest = key.partition(".")
        name, dot, _leaf = rest.rpartition(".")
        if dot and section.lower() in _DRIVER_KEYS and (section.lower(), name) not in found:
            found.append((section.lower(), name))
    return found


def driver_overrides(cwd: os.PathLike | str) -> list[str]:
    """`-c` flags giving every defined driver empty commands (see the module docstring)."""
    items: list[str] = []
    for section, name in defined_drivers(cwd):
        items += [f"{section}.{name}.{key}=" for key in _DRIVER_KEYS[section]]
        if section == "filter":
            items.append(f"filter.{name}.required=false")
    return _config_flags(items)


def with_submodules_ignored(args: list[str]) -> list[str]:
    """args with --ignore-submodules=all right after a status/diff subcommand."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-c", "-C") else 1
    if i < len(args) and args[i] in _SUBMODULE_FLAG_COMMANDS and IGNORE_SUBMODULES not in args:
        return [*args[:i + 1], IGNORE_SUBMODULES, *args[i + 1:]]
    return list(args)


def hardened_argv(args: list[str], cwd: os.PathLike | str) -> list[str]:
    """The full argv for `git args` run in cwd: safe settings, drivers off, no submodules.
    UnsafeGitConfig when the repository's config names a special file."""
    check_repository(cwd, git_env())
    return ["git", *_config_flags(SAFE_CONFIG), *driver_overrides(cwd),
            *with_submodules_ignored(list(args))]
