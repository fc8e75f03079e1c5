"""Runs INSIDE the sandbox: the one entry point of the trusted harness (stdlib only).

    python -I entry.py harness|pytest_plugin CHANNEL_FD < CONFIG.json

`-I` keeps the workspace and this script's directory off sys.path, so nothing the candidate
writes can be imported here; the harness's own modules are imported from this file's
directory only, then that directory leaves sys.path again. trusted.serve does the rest.
"""

from __future__ import annotations

import importlib
import os
import sys

_MODES = ("harness", "pytest_plugin")  # the modules that can run a test mode


def _import_siblings(mode: str):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    try:
        return importlib.import_module("trusted"), importlib.import_module(mode)
    finally:
        sys.path.remove(here)


def main() -> None:
    mode, fd = sys.argv[1], int(sys.argv[2])
    if mode not in _MODES:
        raise SystemExit(f"entry.py: unknown test mode {mode!r}")
    trusted, runner = _import_siblings(mode)
    trusted.serve(fd, runner.WHAT, lambda config, session: runner.run(config, session, trusted))


if __name__ == "__main__":
    main()
