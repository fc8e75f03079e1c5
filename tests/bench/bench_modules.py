"""Load a benchmark script (benchmarks/, benchmarks/peers/) as a module for a test, with its
sibling modules imported fresh from those folders."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SIBLINGS = ("review_cases", "review_bench", "build_bench", "run_peers", "agent_bench")


def load_peers_script(monkeypatch, name: str):
    """benchmarks/peers/NAME.py as the module NAME (undone with `monkeypatch`)."""
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.syspath_prepend(str(BENCH / "peers"))
    for sibling in SIBLINGS:
        monkeypatch.delitem(sys.modules, sibling, raising=False)
    spec = importlib.util.spec_from_file_location(name, BENCH / "peers" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module
