"""Judge a symlink by where it resolves, not by its text.

`d -> .`, `up -> d/..` and `sneaky -> d/d/../secret.txt` all look harmless to a normpath of
their text, yet `up` resolves to the workspace's parent. Here the link is resolved the way the
kernel does, one component at a time in the actual tree, following links met on the way (at
most 40, as the kernel), applying `..` to the resolved path. It must stay inside the root,
never be absolute, and never pass through a path the host policy protects (a `.git`, a
`__pycache__`...): such a path may differ between the sandbox's copy and the user's tree.
"""

from __future__ import annotations

import errno
import os
import stat

from codeloop.sandbox.host_policy import name_refusal

MAX_LINKS_FOLLOWED = 40
MAX_TARGET_CHARS = 1024


def link_refusal(root: str, rel: str) -> str | None:
    """Why the symlink at root/rel may not be written home (None: it resolves inside root)."""
    pending = list(reversed(rel.split("/")))
    current: list[str] = []
    followed = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not current:
                return "symlink resolves outside the workspace"
            current.pop()
            continue
        if name_refusal([*current, part, "-"]):  # a .git or __pycache__ on the way
            return "symlink resolves through a protected path (" + "/".join([*current, part]) + ")"
        try:
            st = os.lstat(os.path.join(root, *current, part))
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                current.append(part)  # missing: later parts are taken as written
                continue
            return f"symlink cannot be resolved ({exc.strerror})"
        if not stat.S_ISLNK(st.st_mode):
            current.append(part)
            continue
        followed += 1
        if followed > MAX_LINKS_FOLLOWED:
            return "symlink chain too long (more than 40 links)"
        target = os.readlink(os.path.join(root, *current, part))
        if os.path.isabs(target):
            return "absolute symlink (only links inside the workspace are copied back)"
        if len(target) > MAX_TARGET_CHARS:
            return f"symlink target longer than {MAX_TARGET_CHARS} characters"
        pending.extend(reversed(target.split("/")))
    return None
