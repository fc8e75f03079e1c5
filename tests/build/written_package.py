"""A project package the test writes, imported afresh (what an earlier test imported under
the same name is forgotten for this one)."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


def import_written(root, monkeypatch, files: dict[str, str], module: str) -> ModuleType:
    """Write `files` ({module name in the `app` package: text}) under `root`/app and import
    `module` from them."""
    package = root / "app"
    package.mkdir(parents=True)
    for name, text in {"__init__": "", **files}.items():
        (package / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(root))
    for loaded in [m for m in sys.modules if m == "app" or m.startswith("app.")]:
        monkeypatch.delitem(sys.modules, loaded)
    return importlib.import_module(module)
