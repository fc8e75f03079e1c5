"""`codeloop bench … --executor ray`: join (or start) the cluster and describe the unit every
problem becomes. The driver builds no model: each worker process builds its own from the spec
(an embedded model is loaded once per worker process; a server backend is only a client)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codeloop.bench.unit import BenchUnit, portable_model_spec, unit_threads
from codeloop.commands.common import err_console, fail
from codeloop.config import Settings
from codeloop.jobs.executor import Executor


@dataclass
class Cluster:
    executor: Executor
    unit: BenchUnit  # its problem is filled in per problem
    runtime: dict[str, Any]


def connect_cluster(settings: Settings, workers: int | None, address: str | None,
                    timeout: float, strategy: str, options: dict[str, Any]) -> Cluster:
    from codeloop.jobs.ray_executor import RayConnectError, RayExecutor, RayNotInstalled
    from codeloop.llm.base import UnknownModelSpec
    from codeloop.llm.registry import parse_spec

    try:
        backend = parse_spec(settings.model).backend
    except UnknownModelSpec as exc:
        fail(str(exc))
    threads = unit_threads(settings.n_threads, backend)
    worker_settings = settings.model_copy(update={
        "model": portable_model_spec(settings.model), "n_threads": threads})
    try:
        executor = RayExecutor(address, max_workers=workers, num_cpus=threads)
    except (RayNotInstalled, RayConnectError) as exc:
        fail(str(exc))
    where = executor.address or "a local Ray cluster"
    err_console.print(f"executor: ray at {where}, {executor.max_workers} unit(s) in flight, "
                      f"{threads} CPU(s) each", highlight=False)
    unit = BenchUnit(problem=None, strategy=strategy,  # type: ignore[arg-type]
                     strategy_options={k: v for k, v in options.items() if v is not None},
                     model=worker_settings.model, settings=worker_settings.model_dump(),
                     timeout=timeout, sandbox_missing="record")
    return Cluster(executor, unit, {"n_threads": threads, "n_ctx": settings.n_ctx,
                                    "executor": "ray"})
