"""The build benchmark (a benchmark, not a test): `codeloop build` on each task graph of
benchmarks/build_graphs/<name>/ (tasks.json), then the graph's hidden acceptance tests
(acceptance/test_*.py, written before any run, never shown to the build) against the
project's `main`, in the sandbox.

    flock /tmp/codeloop-model.lock .venv/bin/python benchmarks/build_bench.py \\
        [--model local:qwen2.5-coder-1.5b] [--graphs bookmarks,notes] [--max-parallel 3] \\
        [--retries 1] [--out-dir benchmarks/results/build-bench-1.5b]

Writes OUT_DIR/summary.json after every graph (a killed run keeps what finished): a `graphs`
map whose entries carry acceptance_passed, acceptance_total, status, tasks merged, tokens
(prompt = prefill, completion = generation) and minutes; OUT_DIR/<graph>/ holds the run's
summary, progress and the project (build_real.py's files).

Each graph also holds reference/ (a project a correct build leaves: it passes every hidden
test); tests/build/test_build_bench_soundness.py checks that, with no model.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from codeloop.build.stacks import load_stack, render_files
from codeloop.run_statuses import settle
from codeloop.sandbox import run_command

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = ROOT / "benchmarks" / "build_graphs"
HIDDEN_DIR = "acceptance_hidden"  # where the hidden tests go in a scored copy


def graph_names() -> list[str]:
    return sorted(p.name for p in GRAPHS.iterdir() if (p / "tasks.json").is_file())


def acceptance_files(folder: Path) -> list[Path]:
    return sorted((folder / "acceptance").glob("test_*.py"))


def acceptance_total(folder: Path) -> int:
    """The number of hidden tests: the test functions at the files' top level."""
    return sum(1 for path in acceptance_files(folder)
               for node in ast.parse(path.read_text(encoding="utf-8")).body
               if isinstance(node, ast.FunctionDef) and node.name.startswith("test"))


def scaffold_tree(stack_name: str, root: Path) -> Path:
    """What the build's scaffold writes for `stack_name` (the stub project, no model)."""
    stack = load_stack(stack_name)
    where = f"the {stack.name} stack"
    files = {**render_files(stack.config_files, root.name, where),
             **render_files(stack.scaffold_files, root.name, where)}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def score_tree(tree: Path, folder: Path, stack_name: str = "python-api") -> dict:
    """The hidden tests of `folder` run on a copy of `tree` in the sandbox: passed, total
    and the output's last line. Each test imports what it checks inside itself, so a missing
    module fails only the tests that need it."""
    stack = load_stack(stack_name)
    with tempfile.TemporaryDirectory(prefix="codeloop-build-score-") as tmp:
        copy = Path(tmp) / "project"
        shutil.copytree(tree, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        hidden = copy / HIDDEN_DIR
        if hidden.exists():
            shutil.rmtree(hidden)
        hidden.mkdir()
        for path in acceptance_files(folder):
            shutil.copy(path, hidden / path.name)
        # The project's own pytest settings and conftest.py (model-written) are not read:
        # they could skip, deselect or rewrite the hidden tests' outcomes.
        (hidden / "pytest.ini").write_text("[pytest]\n")
        argv = stack.commands(["{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "--noconftest", "-c", f"{HIDDEN_DIR}/pytest.ini", HIDDEN_DIR])
        result = run_command(argv, workspace=copy, mode="cow", timeout=180,
                             env=stack.test_env)
    text = (result.stdout + "\n" + result.stderr).strip()
    found = re.findall(r"(\d+) passed", text)
    lines = text.splitlines()
    return {"acceptance_passed": int(found[-1]) if found else 0,
            "acceptance_total": acceptance_total(folder),
            "acceptance_line": lines[-1] if lines else f"exit {result.exit_code}"}


def _unpack_main(archive: Path, into: Path) -> Path:
    into.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def run_graph(name: str, args: argparse.Namespace, out_dir: Path) -> dict:
    """One graph built (build_real.run_build), then scored on its main."""
    from build_real import run_build

    folder = GRAPHS / name
    results = out_dir / name
    summary = run_build(str(folder / "tasks.json"), args.model, results,
                        max_parallel=args.max_parallel, retries=args.retries,
                        command=" ".join(sys.argv), minutes=args.minutes_per_graph)
    final = summary["final"]
    with tempfile.TemporaryDirectory(prefix="codeloop-build-main-") as tmp:
        scored = score_tree(_unpack_main(results / "project.tar.gz", Path(tmp) / "main"),
                            folder)
    total = summary["tokens"].get("total", {})
    # The run's status, as `codeloop build` says it (succeeded only when every task merged);
    # the build's own word beside it (COMPLETE: the integration's suite passed on main).
    status, outcome = settle("build", final["status"], final)
    return {**scored, "status": status, "outcome": outcome, "build_status": final["status"],
            "tasks_total": final["total_tasks"],
            "tasks_merged": final["completed_tasks"], "failed_tasks": final["failed_tasks"],
            "minutes": summary["minutes"], "tokens": summary["tokens"],
            "stopped_at_minutes": summary.get("stopped_at_minutes"),
            "prompt_tokens": total.get("prompt", 0),
            "completion_tokens": total.get("completion", 0), "calls": total.get("calls", 0)}


def _stop_at(text: str) -> float | None:
    """The epoch time of today's HH:MM UTC (None for "")."""
    if not text:
        return None
    hours, minutes = (int(x) for x in text.split(":"))
    now = datetime.now(UTC)
    return now.replace(hour=hours, minute=minutes, second=0, microsecond=0).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--graphs", default="", help="comma-separated names (default: all)")
    parser.add_argument("--max-parallel", type=int, default=3)
    parser.add_argument("--retries", type=int, default=1)
    parser.add_argument("--minutes-per-graph", type=float, default=0,
                        help="stop a graph's build after this long and score its main (0: no "
                             "limit)")
    parser.add_argument("--stop-at", default="",
                        help="HH:MM (UTC, today): every build is stopped by then and scored; "
                             "a graph not started by then is not run")
    parser.add_argument("--out-dir", default=str(ROOT / "benchmarks/results/build-bench-1.5b"))
    args = parser.parse_args()
    names = [n for n in args.graphs.split(",") if n] or graph_names()
    unknown = sorted(set(names) - set(graph_names()))
    if unknown:
        sys.exit(f"unknown graph(s): {', '.join(unknown)} (have {', '.join(graph_names())})")
    out_dir = Path(args.out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "summary.json"
    summary = json.loads(path.read_text()) if path.is_file() else {}
    summary.update({"command": ".venv/bin/python benchmarks/build_bench.py "
                               + " ".join(sys.argv[1:]), "model": args.model})
    graphs = summary.setdefault("graphs", {})
    stop_at = _stop_at(args.stop_at)
    limit = args.minutes_per_graph
    for name in names:
        if stop_at is not None:
            left = (stop_at - time.time()) / 60
            if left < 2:
                print(f"{name}: not run (the --stop-at time has come)", flush=True)
                continue
            args.minutes_per_graph = min(limit or left, left)
        graphs[name] = run_graph(name, args, out_dir)
        ran = [g for g in graphs.values() if "acceptance_total" in g]
        summary["acceptance_passed"] = sum(g["acceptance_passed"] for g in ran)
        summary["acceptance_total"] = sum(g["acceptance_total"] for g in ran)
        summary["graphs_run"] = len(ran)
        path.write_text(json.dumps(summary, indent=2) + "\n")
        print(name, graphs[name]["status"], graphs[name]["acceptance_passed"], "/",
              graphs[name]["acceptance_total"], flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
