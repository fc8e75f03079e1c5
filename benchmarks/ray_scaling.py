"""Throughput of `bench` against Ray workers (issue 25; a benchmark, not a test).

Two parts:
  scripted  the scripted model with a fixed delay per model call (a stand-in for a model
            server's latency), oneshot on the first N HumanEval problems: the local executor,
            then 1, 2 and 4 units in flight on a local Ray cluster; throughput and its ratio
            to ideal (W times the 1-worker throughput).
  server    a model server as the shared backend (`--model openai:NAME`, OPENAI_BASE_URL
            pointing at llama.cpp's server, vLLM or Ollama): 1 and 2 units in flight.

    python benchmarks/ray_scaling.py scripted --problems 32 --delay 1.0 \\
        --out benchmarks/results/ray-scaling/scripted.json
    OPENAI_BASE_URL=http://127.0.0.1:8081/v1 OPENAI_API_KEY=none \\
    python benchmarks/ray_scaling.py server --model openai:qwen2.5-coder-1.5b --problems 12 \\
        --workers 1 2 --out benchmarks/results/ray-scaling/server-1.5b.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def _problems(count: int):
    from codeloop.bench.datasets import load_humaneval

    return load_humaneval()[:count]


def _script(path: Path, problems, delay: float) -> str:
    rules = [{"match": f"def {p.entry_point}(",
              "reply": f"```python\n{p.prompt}{p.reference}\n```"} for p in problems]
    path.write_text(json.dumps({"replies": rules, "delay_seconds": delay}))
    return f"scripted:{path}"


def _unit(model: str, settings) -> object:
    from codeloop.bench.unit import BenchUnit

    return BenchUnit(problem=None, strategy="oneshot", model=model,  # type: ignore[arg-type]
                     settings=settings.model_dump(), timeout=10.0, sandbox_missing="record")


def _timed(problems, out: Path, **kwargs) -> dict:
    from codeloop.bench.meta import run_meta
    from codeloop.bench.runner import run_bench
    from codeloop.bench.strategies import get_strategy

    meta = run_meta(dataset="humaneval", data_path=None, strategy="oneshot",
                    model=kwargs.pop("model_name"))
    started = time.perf_counter()
    outcome = run_bench(problems, get_strategy("oneshot"), kwargs.pop("llm", None), out,
                        meta, **kwargs)
    wall = time.perf_counter() - started
    summary = outcome.summary
    return {"wall_seconds": round(wall, 2), "problems": summary["problems_done"],
            "passed": summary["passed"], "infra_errors": len(summary["infra_errors"]),
            "throughput_per_min": round(60 * summary["problems_done"] / wall, 2),
            "tokens": summary["llm"]["total_tokens"]}


def scripted(args) -> dict:
    import ray

    from codeloop.config import Settings
    from codeloop.jobs.ray_executor import RayExecutor
    from codeloop.llm.registry import get_llm

    problems = _problems(args.problems)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        model = _script(Path(tmp) / "script.json", problems, args.delay)
        settings = Settings(model=model)
        rows["local"] = _timed(problems, Path(tmp) / "local", model_name=model,
                               llm=get_llm(model, settings))
        ray.init(address="local", num_cpus=max(args.workers), include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
        try:
            for workers in args.workers:
                executor = RayExecutor(max_workers=workers)
                rows[f"ray-{workers}"] = _timed(problems, Path(tmp) / f"ray-{workers}",
                                                model_name=model, executor=executor,
                                                unit=_unit(model, settings))
        finally:
            ray.shutdown()
    return rows


def server(args) -> dict:
    import ray

    from codeloop.config import load_config
    from codeloop.jobs.ray_executor import RayExecutor

    settings = load_config().settings.model_copy(update={"model": args.model})
    problems = _problems(args.problems)
    rows = {}
    ray.init(address="local", num_cpus=max(args.workers), include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for workers in args.workers:
                executor = RayExecutor(max_workers=workers)
                rows[f"ray-{workers}"] = _timed(problems, Path(tmp) / f"ray-{workers}",
                                                model_name=args.model, executor=executor,
                                                unit=_unit(args.model, settings))
    finally:
        ray.shutdown()
    return rows


def with_ratios(rows: dict) -> dict:
    base = rows.get("ray-1")
    for name, row in rows.items():
        if base and name.startswith("ray-"):
            workers = int(name.split("-")[1])
            row["speedup"] = round(row["throughput_per_min"] / base["throughput_per_min"], 2)
            row["ratio_to_ideal"] = round(row["speedup"] / workers, 2)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["scripted", "server"])
    parser.add_argument("--problems", type=int, default=32)
    parser.add_argument("--delay", type=float, default=1.0, help="scripted: seconds a call")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--model", default="", help="server: e.g. openai:qwen2.5-coder-1.5b")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = with_ratios(scripted(args) if args.part == "scripted" else server(args))
    from codeloop.bench.meta import command_line, machine, now_iso

    report = {"part": args.part, "problems": args.problems, "delay_seconds": args.delay,
              "model": args.model or "scripted", "date": now_iso(), "machine": machine(),
              "command": command_line(), "rows": rows}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
