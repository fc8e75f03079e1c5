"""One bench problem as a unit of work (principle 14): a plain function of serialisable inputs
that returns its record, so the same unit runs in a thread of this process or as a Ray task on
another node. Units never open the store or the run directory: the driver alone writes.

On a worker the model is built from its spec once per process and kept (`_MODELS`): an
embedded GGUF is loaded (and its SHA-256 checked against the node's cache record) once per
worker process, not once per problem. In this process the driver registers the model it
already built, so local units share its one instance, as before.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeloop.bench.datasets import Problem
from codeloop.bench.problem_run import run_problem
from codeloop.bench.records import INFRA_ERROR, ProblemRecord
from codeloop.llm.base import LLM

_MODELS: dict[tuple[str, str], LLM] = {}
_MODELS_LOCK = threading.Lock()


@dataclass(frozen=True)
class BenchUnit:
    problem: Problem
    strategy: str
    strategy_options: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    settings: dict[str, Any] = field(default_factory=dict)  # Settings.model_dump()
    timeout: float = 10.0
    # "raise": a missing sandbox stops the run (it is this machine's); "record": the unit
    # fails alone, naming its node (another node may have one).
    sandbox_missing: str = "raise"


class NodeSandboxMissing(Exception):
    """The node a unit landed on cannot run the sandbox; nothing was run there."""


def _model_key(model: str, settings: dict[str, Any]) -> tuple[str, str]:
    relevant = {k: settings.get(k) for k in sorted(settings) if k != "model"}
    return model, repr(relevant)


def register_model(model: str, settings: dict[str, Any], llm: LLM) -> None:
    """The driver's model instance, for the units that run in this process."""
    with _MODELS_LOCK:
        _MODELS[_model_key(model, settings)] = llm


def forget_models() -> None:
    with _MODELS_LOCK:
        _MODELS.clear()


def worker_model(model: str, settings: dict[str, Any]) -> LLM:
    """The model for units in this process: built from its spec on first use, then kept."""
    from codeloop.config import Settings
    from codeloop.llm.registry import get_llm

    key = _model_key(model, settings)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = get_llm(model, Settings.model_validate(settings))
        return _MODELS[key]


def node_name() -> str:
    """Host, address and (on Ray) node id: enough to find the machine in a cluster."""
    host = socket.gethostname()
    try:
        import ray

        if ray.is_initialized():
            context = ray.get_runtime_context()
            return f"{host} ({ray.util.get_node_ip_address()}, node {context.get_node_id()[:12]})"
    except Exception:  # noqa: BLE001, S110 - not on Ray: the host name is enough
        pass
    return host


def check_node_sandbox() -> None:
    from codeloop.sandbox.bwrap import check_tools, runs_as_root
    from codeloop.sandbox.types import SandboxUnavailable

    try:
        check_tools(runs_as_root())
    except SandboxUnavailable as exc:
        reason = str(exc).split(". Fix the cause")[0]
        raise NodeSandboxMissing(f"node {node_name()}: no sandbox, the unit did not run "
                                 f"(bench never runs code unsandboxed): {reason}") from None


def infra_record(task_id: str, reason: str) -> ProblemRecord:
    return ProblemRecord(task_id=task_id, passed=False, outcome=INFRA_ERROR, reason=reason)


def run_unit(unit: BenchUnit) -> ProblemRecord:
    """Solve and score one problem where this runs; its record."""
    from codeloop.bench.strategies import get_strategy

    try:
        check_node_sandbox()
    except NodeSandboxMissing as exc:
        if unit.sandbox_missing == "raise":
            raise
        return infra_record(unit.problem.task_id, str(exc))
    strategy = get_strategy(unit.strategy, **unit.strategy_options)
    return run_problem(strategy, unit.problem, worker_model(unit.model, unit.settings), timeout=unit.timeout)


def unit_threads(n_threads: int, backend: str) -> int:
    """CPUs one unit takes: an embedded model's llama.cpp threads (CODELOOP_N_THREADS, 1 when
    unset: several units share a node and must not each take all its cores); 1 for a unit
    that waits on a server."""
    return max(1, n_threads) if backend == "local" else 1


def portable_model_spec(spec: str) -> str:
    """A spec whose file path works from any working directory (a Ray worker's is not the
    driver's): scripted and local file paths made absolute."""
    backend, sep, name = spec.partition(":")
    if sep and backend in ("scripted", "local") and (
            name.startswith(("./", "../", "~")) or name.endswith((".gguf", ".yaml", ".yml",
                                                                  ".json"))):
        return f"{backend}:{Path(os.path.expanduser(name)).resolve()}"
    return spec
