"""Agent benchmark (not a test): small workspace tasks, each scored by running its tests.

Each task in benchmarks/agent_tasks/<name>/ has task.yaml (request, test_command), files/ (the
starting workspace, committed to a fresh git repository) and check/ (hidden tests copied in
after the agent finishes). The task passes when test_command exits 0 in the sandbox.

    python benchmarks/agent_bench.py --model local:qwen2.5-coder-1.5b \
        --mode both --out benchmarks/agent_results.json

With `--executor ray` each (task, mode) is a unit on a Ray cluster: the unit carries the task's
files (a node needs codeloop, not this repository), builds its model once per worker process,
and returns its result and transcript; only this process writes them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

TASKS_DIR = Path(__file__).parent / "agent_tasks"


@dataclass
class TaskResult:
    task: str
    mode: str
    passed: bool
    status: str
    steps: int
    tokens: int
    seconds: float
    test_output: str


def load_tasks(names: list[str] | None) -> list[tuple[str, dict, Path]]:
    tasks = []
    for folder in sorted(p for p in TASKS_DIR.iterdir() if (p / "task.yaml").is_file()):
        if names and folder.name not in names:
            continue
        spec = yaml.safe_load((folder / "task.yaml").read_text())
        tasks.append((folder.name, spec, folder))
    if names and len(tasks) != len(names):
        known = {t[0] for t in tasks}
        sys.exit(f"unknown task(s): {', '.join(n for n in names if n not in known)}")
    return tasks


def _is_test(relative: Path) -> bool:
    from codeloop.jobs.request_files import is_test_path

    return is_test_path(relative.as_posix())


def _copy_files(source: Path, target: Path, only=None) -> None:
    for path in source.rglob("*"):
        if only is not None and not only(path.relative_to(source)):
            continue
        if path.is_file() and path.name != ".gitkeep":
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)


def run_task(llm, name: str, spec: dict, folder: Path, mode: str, limits,
             transcript: Path | None = None, context_first: bool = True) -> TaskResult:
    """One task in one mode; `transcript` gets every event (thoughts, tool calls, model
    calls) as JSON lines, to see afterwards why a task failed."""
    from codeloop.agent.factory import agent_spec
    from codeloop.agent.multi.orchestrator import run_multi_agent
    from codeloop.agent.session import AgentSession
    from codeloop.agent.snapshots import Snapshots, init_repo
    from codeloop.events import EventBus, EventRecorder
    from codeloop.store import RunStore
    from codeloop.tools import Workspace

    with tempfile.TemporaryDirectory(prefix=f"agent-bench-{name}-") as scratch:
        root = Path(scratch) / "ws"
        root.mkdir()
        _copy_files(folder / "files", root)
        init_repo(root)
        workspace = Workspace.at(root, shell_timeout=60)
        bus, recorder = EventBus(), EventRecorder()
        bus.subscribe(recorder)
        started = time.perf_counter()
        if mode in ("single", "tools"):
            with RunStore(Path(scratch) / "runs.sqlite") as store:
                session = AgentSession(llm, agent_spec("single", workspace, limits=limits,
                                                       bus=bus),
                                       checkpointer=store.checkpointer(),
                                       snapshots=Snapshots(workspace), thread=name, bus=bus,
                                       context_first=context_first and mode == "single")
                turn = session.ask(spec["request"])
                status, steps, tokens = turn.status, turn.steps, turn.tokens
        else:
            result = run_multi_agent(llm, workspace, spec["request"], limits=limits, bus=bus)
            status, steps, tokens = result.status, result.steps, result.tokens
        if transcript is not None:
            transcript.write_text("".join(e.model_dump_json() + "\n" for e in recorder.events))
        seconds = time.perf_counter() - started
        passed, last_line = score_workspace(root, spec, folder)
        return TaskResult(name, mode, passed, status, steps, tokens, round(seconds, 1),
                          last_line)


def score_workspace(root: Path, spec: dict, folder: Path) -> tuple[bool, str]:
    """Score a workspace the agent has finished with: (passed, last line of the test output).
    Also used by benchmarks/peers/ to score other agents the same way."""
    from codeloop.jobs.request_files import protects_tests
    from codeloop.sandbox import run_command

    # When the request asks to fix code, the task's own test files as they were (a test
    # the agent edited to match the bug does not count); then the hidden tests.
    if protects_tests(spec["request"]):
        _copy_files(folder / "files", root, only=_is_test)
    _copy_files(folder / "check", root)
    check = run_command(["bash", "-c", spec["test_command"]], workspace=root, mode="cow",
                        timeout=120)
    output = (check.stdout + check.stderr).strip().splitlines()
    return check.exit_code == 0, output[-1] if output else ""


def summarise(results: list[TaskResult]) -> str:
    header = (f"{'task':<28} {'mode':<7} {'pass':<5} {'status':<13} {'steps':>5} "
              f"{'tokens':>7} {'sec':>7}")
    lines = [header]
    for r in results:
        lines.append(f"{r.task:<28} {r.mode:<7} {'yes' if r.passed else 'no':<5} "
                     f"{r.status:<13} {r.steps:>5} {r.tokens:>7} {r.seconds:>7.1f}")
    for mode in sorted({r.mode for r in results}):
        rows = [r for r in results if r.mode == mode]
        rate = sum(r.passed for r in rows) / len(rows)
        lines.append(f"{mode}: {sum(r.passed for r in rows)}/{len(rows)} passed "
                     f"({rate:.0%}); mean steps {sum(r.steps for r in rows) / len(rows):.1f}, "
                     f"mean tokens {sum(r.tokens for r in rows) / len(rows):.0f}")
    return "\n".join(lines)


def pack_task(folder: Path) -> dict[str, bytes]:
    """The task's files/ and check/ as {relative path: bytes}, to ship in a unit."""
    return {str(p.relative_to(folder)): p.read_bytes() for sub in ("files", "check")
            for p in sorted((folder / sub).rglob("*")) if p.is_file()}


def run_unit(unit: dict) -> dict:
    """One (task, mode) wherever the executor runs it: its result and its transcript."""
    from codeloop.bench.unit import check_node_sandbox, worker_model
    from codeloop.jobs.react.state import AgentLimits

    check_node_sandbox()  # never run a task's code outside the sandbox, on any node
    llm = worker_model(unit["model"], unit["settings"])
    limits = AgentLimits(max_steps=unit["max_steps"],
                         max_tokens_per_step=unit["settings"]["max_tokens"])
    with tempfile.TemporaryDirectory(prefix="agent-bench-unit-") as scratch:
        folder = Path(scratch)
        for relative, data in unit["files"].items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_bytes(data)
        for sub in ("files", "check"):
            (folder / sub).mkdir(exist_ok=True)
        transcript = folder / "transcript.jsonl"
        result = run_task(llm, unit["name"], unit["spec"], folder, unit["mode"], limits,
                          transcript)
        return {"result": asdict(result), "transcript": transcript.read_text()}


def _run_on_cluster(args, settings, jobs, record) -> None:
    """Every (task, mode) as a unit; results recorded as they come back."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from codeloop.bench.unit import portable_model_spec, unit_threads
    from codeloop.jobs.ray_executor import RayExecutor
    from codeloop.llm.registry import parse_spec

    model = portable_model_spec(args.model)
    threads = unit_threads(settings.n_threads, parse_spec(model).backend)
    worker_settings = settings.model_copy(update={"model": model, "n_threads": threads})
    executor = RayExecutor(args.ray_address, max_workers=args.workers, num_cpus=threads)
    try:
        futures = {executor.submit(run_unit, {
            "name": name, "spec": spec, "files": pack_task(folder), "mode": mode,
            "model": model, "settings": worker_settings.model_dump(),
            "max_steps": args.max_steps}): (name, mode) for name, spec, folder, mode in jobs}
        while futures:
            done, _ = wait(set(futures), return_when=FIRST_COMPLETED)
            for future in done:
                name, mode = futures.pop(future)
                try:
                    out = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost unit is said, not scored
                    cause = executor.cause(exc)
                    reason = executor.infra_failure(exc) or f"{type(cause).__name__}: {cause}"
                    print(f"{name} [{mode}]: NO RESULT ({reason})", flush=True)
                    continue
                record(TaskResult(**out["result"]), out["transcript"])
    finally:
        executor.shutdown(wait=False, cancel_pending=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="model spec, e.g. local:/path/x.gguf")
    parser.add_argument("--mode", choices=["single", "tools", "multi", "both", "all"],
                        default="single", help="single: the agent as shipped (context first, "
                        "then the tools); tools: the ReAct tools alone (--tools-only); multi: "
                        "planner, implementer, validator; both: single and multi; all: the "
                        "three")
    parser.add_argument("--tasks", nargs="*", help="task names (default: all)")
    parser.add_argument("--max-steps", type=int, default=15)
    parser.add_argument("--out", type=Path, help="write the results as JSON here, and each "
                        "run's events to the folder of the same name without .json")
    parser.add_argument("--executor", choices=["local", "ray"], default="local")
    parser.add_argument("--ray-address", help="ray: auto, ray://HOST:PORT or HOST:PORT "
                        "(default CODELOOP_RAY_ADDRESS, else a local cluster)")
    parser.add_argument("--workers", type=int, help="ray: units in flight (default: the "
                        "cluster's CPUs)")
    args = parser.parse_args()

    from codeloop.config import load_config
    from codeloop.jobs.react.state import AgentLimits
    from codeloop.llm.registry import get_llm

    settings = load_config().settings
    modes = {"both": ["single", "multi"], "all": ["single", "tools", "multi"]}.get(
        args.mode, [args.mode])
    results = []
    transcripts = args.out.with_suffix("") if args.out else None
    if transcripts is not None:
        transcripts.mkdir(parents=True, exist_ok=True)

    def record(result: TaskResult, transcript: str | None = None) -> None:
        print(f"{result.task} [{result.mode}]: {'PASS' if result.passed else 'FAIL'} "
              f"({result.status}, {result.steps} steps, {result.tokens} tokens, "
              f"{result.seconds}s)", flush=True)
        results.append(result)
        if transcripts is not None and transcript is not None:
            (transcripts / f"{result.task}.{result.mode}.jsonl").write_text(transcript)
        if args.out:
            args.out.write_text(json.dumps([asdict(r) for r in results], indent=2))

    jobs = [(name, spec, folder, mode) for name, spec, folder in load_tasks(args.tasks)
            for mode in modes]
    if args.executor == "ray":
        _run_on_cluster(args, settings, jobs, record)
    else:
        llm = get_llm(args.model, settings)
        limits = AgentLimits(max_steps=args.max_steps, max_tokens_per_step=settings.max_tokens)
        for name, spec, folder, mode in jobs:
            transcript = transcripts / f"{name}.{mode}.jsonl" if transcripts else None
            record(run_task(llm, name, spec, folder, mode, limits, transcript))
    print(summarise(results))


if __name__ == "__main__":
    main()
