"""File names the host's Python loads by itself: in place of a user's source module, or at
every interpreter start. Judged by the import system's rules, not by a list of payloads.

- Native extension modules: every suffix `importlib.machinery.EXTENSION_SUFFIXES` lists here
  (`.cpython-311-x86_64-linux-gnu.so`, `.abi3.so`, `.so`) and the other platforms' (`.pyd`,
  `.dylib`). The path finder tries extensions before sources, so `calc.<suffix>` beside an
  unchanged `calc.py` is what `import calc` runs; a package's `__init__.<suffix>` runs for
  the package.
- Bytecode (`.pyc`, `.pyo`, anything in `__pycache__`): imported instead of its source, or
  on its own where no source is.
- `.pth` files (and Windows' `._pth`): their `import` lines run at start from a site dir.
- `sitecustomize` and `usercustomize`: imported at every start from anywhere on sys.path, as
  a module of any suffix or as a package (a directory of that name), so the name itself is
  refused whatever follows its first dot.

Every component of a path is judged, so a directory is refused as well as a file.
"""

from __future__ import annotations

import importlib.machinery

BYTECODE_CACHE = "__pycache__"
BYTECODE_SUFFIXES = (".pyc", ".pyo")
STARTUP_FILE_SUFFIXES = (".pth", "._pth")
STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})
# The host's own suffixes, plus every platform's: a tree may be shared or copied elsewhere.
NATIVE_SUFFIXES = tuple(sorted({s.lower() for s in importlib.machinery.EXTENSION_SUFFIXES}
                               | {".so", ".pyd", ".dylib"}))


def implicit_code_refusal(name: str) -> str | None:
    """Why Python would load a file or directory called `name` without being asked to, as a
    refusal reason ending in "never written"; None when it would not."""
    lower = name.lower()
    if lower == BYTECODE_CACHE:
        return "bytecode caches (__pycache__) run on import and are never written"
    if lower.endswith(BYTECODE_SUFFIXES):
        return "compiled bytecode (.pyc) runs on import and is never written"
    if lower.endswith(NATIVE_SUFFIXES):
        return ("native extension modules (.so, .pyd) are imported in place of the source "
                "beside them and are never written")
    if lower.endswith(STARTUP_FILE_SUFFIXES):
        return ".pth files run at every Python start and are never written"
    module = lower.split(".", 1)[0]
    if module in STARTUP_MODULES:
        return f"{module} (a module or a package) runs at every Python start and is never written"
    return None
