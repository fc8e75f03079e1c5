"""Strategies by name. A strategy is one module here that defines `STRATEGY` (a class with
`name`, `description` and `solve(problem, llm) -> Attempt`); its module name is its name,
so adding one is adding one file."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from codeloop.bench.strategies.base import Attempt, Strategy

__all__ = [
    "Attempt",
    "Strategy",
    "UnknownStrategy",
    "available",
    "get_strategy",
]
_NOT_STRATEGIES = {"base"}


class UnknownStrategy(ValueError):
    pass


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__)
                  if m.name not in _NOT_STRATEGIES and not m.name.startswith("_"))


def get_strategy(name: str, **options: object) -> Strategy:
    """An instance of the named strategy; the `options` its constructor takes go to it
    (so the CLI can offer every strategy's knobs and each takes its own)."""
    if name not in available():
        raise UnknownStrategy(f"unknown strategy {name!r}; available: {', '.join(available())}")
    cls = importlib.import_module(f"{__name__}.{name}").STRATEGY
    accepted = inspect.signature(cls).parameters
    return cls(**{k: v for k, v in options.items() if k in accepted and v is not None})
