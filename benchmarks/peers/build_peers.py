"""gpt-engineer beside `codeloop build`: the build benchmark's task graphs
(benchmarks/build_graphs/<graph>/), the same GGUF, the same per-graph time cap, scored by
build_bench.score_tree (the graph's hidden acceptance tests, in codeloop's sandbox, counted the
same way: acceptance_passed / acceptance_total).

What gpt-engineer gets: a fresh project holding the python-api stack's scaffold (what
codeloop's build starts from) and a `prompt` file with what codeloop's task agents are told,
all at once: the stack's description and conventions, the scaffold files, and per task its
id, dependencies, description, implementation details and its contract (the modules, names
and endpoints it builds, build.contract.task_contract). Then `gpte . --model ALIAS
--temperature 0` in that project, its default mode (generate, then the entrypoint), against
llama.cpp's OpenAI server through run_peers.py's token-counting proxy. Its two questions on
standard input are answered "n" (do not run the code on the host; no feedback upload), its
replies are not streamed (llama.cpp's server reports usage only on whole replies; gpt-engineer
only echoes streamed tokens) and its own token estimate (a log line) needs no downloaded
tokenizer: gpte_run.py below, nothing else changed. What it leaves in the project is scored.

The model server, the proxy, the peer venv (runs/peers-venvs/gpt-engineer, pinned), the time
cap and kill are run_peers.py's; the model lock is review_bench.model_lock, held per graph.

    .venv/bin/python benchmarks/peers/build_peers.py --label 1.5b-gpt-engineer \\
        --lock /tmp/codeloop-model.lock [--graphs bookmarks notes] [--minutes-per-graph 12]

Writes benchmarks/results/build-LABEL.json (a `graphs` map as build_bench's summary.json)
and build-LABEL/ (README.md; per graph gpt-engineer's output, its logs and project.tar.gz).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # build_bench, review_bench
sys.path.insert(0, str(HERE))  # run_peers

import build_bench
import run_peers as peers
from review_bench import git_commit, model_lock

GPTE = peers.Peer("gpt-engineer", "gpt-engineer==0.3.1", "gpt-engineer", "gpte")
RESULTS = HERE.parent / "results"
CODELOOP_SUMMARY = RESULTS / "build-bench-1.5b" / "summary.json"
WRAPPER = '''\
"""gpte, with its questions answered "n", unstreamed replies, no tokenizer download."""
import io, os, sys
import tiktoken
from gpt_engineer.core import ai


class _NoTokenizer:  # gpt-engineer's own token estimate (a log line) only
    def encode(self, text, *args, **kwargs):
        return []


tiktoken.get_encoding = lambda *args, **kwargs: _NoTokenizer()
tiktoken.encoding_for_model = lambda *args, **kwargs: _NoTokenizer()
_init = ai.AI.__init__


def _unstreamed(self, *args, **kwargs):
    kwargs["streaming"] = False
    _init(self, *args, **kwargs)
    if int(os.environ.get("GPTE_MAX_TOKENS") or 0):
        self.llm.max_tokens = int(os.environ["GPTE_MAX_TOKENS"])


ai.AI.__init__ = _unstreamed
sys.stdin = io.StringIO("n\\n" * 20)
from gpt_engineer.applications.cli.main import app

sys.argv[0] = "gpte"
sys.exit(app())
'''


def contract_lines(tasks: list[dict[str, Any]], stack: Any, root: Path,
                   files: list[str]) -> dict[str, str]:
    """What each task builds, as the tests-first prompt words its contract; what the tasks
    it depends on build is left out (codeloop's task sees that on main, not as its own)."""
    from codeloop.build.contract import task_contract

    built: dict[str, tuple[set[str], set[str]]] = {}  # task id -> its modules, names
    lines: dict[str, str] = {}
    for task in tasks:
        deps, todo = set(), list(task.get("depends_on") or [])
        while todo:
            dep = todo.pop()
            if dep not in deps:
                deps.add(dep)
                todo += next(t.get("depends_on") or [] for t in tasks if t["id"] == dep)
        theirs_m = set().union(*(built[d][0] for d in deps if d in built))
        theirs_n = set().union(*(built[d][1] for d in deps if d in built))
        others = [t for t in tasks if t["id"] != task["id"]]
        shown = task_contract(task, others, [], stack, root, files,
                              f"tests/test_{task['id']}.py").as_prompt()
        modules = [m for m in shown["modules"] if m not in theirs_m] or shown["modules"]
        names = [n for n in shown["names"] if n not in theirs_n]
        models = [m for m in shown["models"] if m not in theirs_n]
        built[task["id"]] = (set(modules), set(names))
        line = f"It builds {', '.join(modules)}" + (f" ({', '.join(names)})" if names else "")
        line += (f", with the endpoints {', '.join(shown['endpoints'])}." if shown["endpoints"]
                 else "; it builds no HTTP endpoint.")
        if models:
            line += (f" {', '.join(models)}: pydantic model(s), built with keyword arguments "
                     "only.")
        lines[task["id"]] = line
    return lines


def prompt_text(folder: Path, root: Path) -> str:
    """The graph as gpt-engineer's prompt; `root` holds the scaffold."""
    from codeloop.build.stacks import load_stack

    graph = json.loads((folder / "tasks.json").read_text())
    stack = load_stack(graph["tech_stack"])
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    lines = [f"Project: {stack.description}.", stack.conventions.strip(), "",
             ("The project already holds these files (the scaffold); write any file you change "
              "in full:"), ""]
    for path in files:
        text = (root / path).read_text()
        lines += [path, "```", text.rstrip("\n"), "```", ""] if text.strip() else [
            f"{path} (empty)", ""]
    lines += ["Build it as these tasks (a task uses what the tasks it depends on build):", ""]
    contracts = contract_lines(graph["tasks"], stack, root, files)
    for task in graph["tasks"]:
        deps = task.get("depends_on") or []
        lines.append(f"Task {task['id']}" + (f" (depends on {', '.join(deps)})" if deps else "")
                     + f": {task['description']}")
        if task.get("implementation_details"):
            lines.append(f"Details: {task['implementation_details']}")
        lines += [contracts[task["id"]], ""]
    return "\n".join(lines)


def keep_project(root: Path, archive: Path) -> list[str]:
    """project.tar.gz of what the run left (no .git, no links); the files' paths."""
    kept: list[str] = []
    with tarfile.open(archive, "w:gz") as tar:
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if ".git" in rel.parts or path.is_symlink() or not path.is_file():
                continue
            tar.add(path, arcname=rel.as_posix(), recursive=False)
            kept.append(rel.as_posix())
    return kept


def run_graph(name: str, proxy: peers.CountingProxy, alias: str, args: argparse.Namespace,
              logs: Path) -> dict[str, Any]:
    """gpt-engineer on one graph in a fresh project, then the hidden tests on it."""
    folder = build_bench.GRAPHS / name
    stack_name = json.loads((folder / "tasks.json").read_text())["tech_stack"]
    logs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"build-peer-{name}-") as tmp:
        scratch = Path(tmp)
        root = scratch / name  # the project's name, as the build's scaffold renders it
        root.mkdir()
        build_bench.scaffold_tree(stack_name, root)
        prompt = prompt_text(folder, root)
        (root / "prompt").write_text(prompt)
        (logs / "prompt").write_text(prompt)
        wrapper = scratch / "gpte_run.py"
        wrapper.write_text(WRAPPER)
        argv = [str(GPTE.venv / "bin" / "python"), str(wrapper), ".", "--model", alias,
                "--temperature", "0"]
        run = peers.Run(name, prompt, "", root, scratch, proxy.url, alias, [], False, args)
        env = peers.peer_env(run, {"OPENAI_BASE_URL": proxy.url, "LOCAL_MODEL": "true",
                                   "GPTE_MAX_TOKENS": str(args.max_tokens)})
        log = logs / "output.log"
        bucket = proxy.new_bucket()
        with model_lock(args.lock):
            load_start = round(os.getloadavg()[0], 2)
            code, timed_out, seconds = peers.launch(argv, run, env, log,
                                                    args.minutes_per_graph * 60, proxy)
        memory_logs = root / ".gpteng" / "memory" / "logs"
        if memory_logs.is_dir():
            for path in memory_logs.iterdir():
                if path.is_file() and not path.is_symlink():
                    (logs / f"gpteng.{path.name}").write_bytes(path.read_bytes())
        written = keep_project(root, logs / "project.tar.gz")
        scored = build_bench.score_tree(root, folder, stack_name)
    status = "timeout" if timed_out else ("done" if code == 0 else f"exit {code}")
    total = {"calls": bucket.calls, "prompt": bucket.prompt_tokens,
             "completion": bucket.completion_tokens, "without_usage": bucket.without_usage}
    return {**scored, "status": status, "exit_code": code, "timed_out": timed_out,
            "minutes": round(seconds / 60, 1), "seconds": round(seconds, 1),
            "tokens": {"total": total}, "prompt_tokens": bucket.prompt_tokens,
            "completion_tokens": bucket.completion_tokens, "calls": bucket.calls,
            "files": [f for f in written if not f.startswith(".gpteng/")],
            "load_avg": [load_start, round(os.getloadavg()[0], 2)],  # 1 min, 2 cores
            "command": [a.replace(str(scratch), "$SCRATCH").replace(f"{peers.REPO}/", "")
                        for a in argv]}


def write_readme(summary: dict[str, Any], out: Path, codeloop: Path) -> None:
    ours = json.loads(codeloop.read_text()).get("graphs", {}) if codeloop.is_file() else {}
    lines = [f"# gpt-engineer on the build benchmark ({summary['label']})", "",
             __doc__.split("\n\n")[0].replace("\n", " "), "", "```", summary["command"], "```",
             "", (f"{summary['peer']}; model {summary['model']}; {summary['engine']}; "
                  f"{summary['date']}; commit {summary['commit']}."), "",
             ("| graph | acceptance | calls | tokens (prompt + completion) | minutes | status | load "
              f"| codeloop build ({codeloop.parent.name}) |"), "|---|---|---|---|---|---|---|---|"]
    for name, g in sorted(summary["graphs"].items()):
        mine = ours.get(name)
        theirs = (f"{mine['acceptance_passed']} / {mine['acceptance_total']}, {mine['calls']} "
                  f"calls, {mine['prompt_tokens']:,} + {mine['completion_tokens']:,} tok, "
                  f"{mine['minutes']} min" if mine else "")
        lines.append(f"| {name} | **{g['acceptance_passed']} / {g['acceptance_total']}** | "
                     f"{g['calls']} | {g['prompt_tokens']:,} + {g['completion_tokens']:,} | "
                     f"{g['minutes']} | {g['status']} | {g['load_avg']} | {theirs} |")
    lines += ["", (f"All graphs run: {summary['acceptance_passed']} / "
                   f"{summary['acceptance_total']} hidden acceptance tests."), "",
              ("Per graph: `prompt` (what gpt-engineer was given), `output.log` (its terminal "
               "output), `gpteng.*` (its own logs: the model's replies), `project.tar.gz` "
               "(what it left, scored). Tokens are llama.cpp's usage per response, summed by "
               "the proxy. Load: the 1-minute load average at the start and the end of the run "
               "(2 cores; the model lock keeps other model runs off, not test suites)."), "",
              ("Not alike: gpt-engineer writes the whole project in one reply (then a run.sh), "
               "runs no test and gets no feedback (its offer to run run.sh on the host is "
               "declined; --self-heal is not used), and writes its files only at its end, so a "
               "run cut at the cap leaves the scaffold alone; codeloop writes tests first per "
               "task, runs them in its sandbox, fixes, merges and integrates. gpt-engineer's "
               "replies have no output cap (codeloop's calls: 1024 tokens each) and it sees all "
               "tasks in one prompt (codeloop: one task and its contract per prompt, with "
               "main's code)."), ""]
    (out / "README.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    from codeloop.bench.meta import now_iso
    from codeloop.config import load_config

    settings = load_config().settings
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", required=True, help="names results/build-LABEL.*")
    parser.add_argument("--graphs", nargs="*", help="graph names (default: all)")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--minutes-per-graph", type=float, default=12)
    parser.add_argument("--lock", type=Path, help="flock held per graph (the model lock)")
    parser.add_argument("--n-ctx", type=int, default=settings.n_ctx)
    parser.add_argument("--threads", type=int, default=settings.threads())
    parser.add_argument("--max-tokens", type=int, default=0,
                        help="output cap per model call (0: gpt-engineer's own, none)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--codeloop-summary", type=Path, default=CODELOOP_SUMMARY)
    parser.add_argument("--install-only", action="store_true")
    args = parser.parse_args(argv)
    names = args.graphs or build_bench.graph_names()
    unknown = sorted(set(names) - set(build_bench.graph_names()))
    if unknown:
        parser.error(f"unknown graph(s): {', '.join(unknown)}")
    peers.install(GPTE)
    if args.install_only:
        return 0
    out = args.results_dir / f"build-{args.label}"
    path = args.results_dir / f"build-{args.label}.json"
    summary = json.loads(path.read_text()) if path.is_file() else {}
    summary.update({
        "label": args.label, "peer": GPTE.requirement, "model": args.model,
        "command": ".venv/bin/python " + shlex.join(
            ["benchmarks/peers/build_peers.py", *(sys.argv[1:] if argv is None else argv)]),
        "engine": f"llama_cpp.server + counting proxy (n_ctx {args.n_ctx}, threads "
                  f"{args.threads}, max_tokens {args.max_tokens or 'none'}), temperature 0",
        "minutes_per_graph": args.minutes_per_graph, "date": now_iso(),
        "commit": git_commit()})
    graphs = summary.setdefault("graphs", {})
    with peers.counted_server(args.model, args.n_ctx, args.threads,
                              "build-peers-llama-server.log") as (alias, proxy):
        for name in names:
            graphs[name] = result = run_graph(name, proxy, alias, args, out / name)
            summary["acceptance_passed"] = sum(g["acceptance_passed"]
                                               for g in graphs.values())
            summary["acceptance_total"] = sum(g["acceptance_total"] for g in graphs.values())
            summary["graphs_run"] = len(graphs)
            path.write_text(json.dumps(summary, indent=2) + "\n")
            write_readme(summary, out, args.codeloop_summary)
            print(f"{name} [gpt-engineer]: {result['acceptance_passed']} / "
                  f"{result['acceptance_total']} ({result['status']}, {result['calls']} "
                  f"calls, {result['prompt_tokens'] + result['completion_tokens']} tokens, "
                  f"{result['minutes']} min)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
