"""aider on the review benchmark's cases (issue 51), beside `codeloop review`: the same
request and files, the same GGUF, the same time cap, scored exactly as review_bench.py scores
(hidden tests pass in the sandbox AND the planted finding gone; review_bench.scored).

The model server, the token-counting proxy, aider's install and command line are
run_peers.py's: aider gets the case's request with `--message`, the case's files (those
`codeloop review FILES` gets), `--edit-format whole`, greedy, codeloop's output cap per call,
and `--auto-test` with pytest when the workspace has tests. Each case runs in a fresh git
repository (aider's own setting), holding the model lock for that case only, so it can run
interleaved with review_bench.py under the same lock.

    .venv/bin/python benchmarks/peers/review_peers.py --label 1.5b-aider \\
        --lock /tmp/codeloop-model.lock [--cases sql_injection off_by_one] [--resume]

Results as review_bench.py writes them: results/review-LABEL.jsonl (one record per case,
mode "aider"), review-LABEL.md, and review-LABEL/ (aider's output and chat history per case).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # review_bench, review_cases
sys.path.insert(0, str(HERE))  # run_peers

import review_bench as bench
import review_cases as cases_mod
import run_peers as peers

TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"
PEER = "aider"


def peer_run(case, root: Path, scratch: Path, api_base: str, alias: str,
             args: argparse.Namespace) -> peers.Run:
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                   if p.is_file() and ".git" not in p.relative_to(root).parts)
    has_tests = any(Path(f).name.startswith("test_") for f in files)
    return peers.Run(case.name, case.request, TEST_COMMAND, root, scratch, api_base, alias,
                     files, has_tests, args, given=list(case.files))


def run_case(case, proxy: peers.CountingProxy, alias: str, args: argparse.Namespace, *,
             logs: Path | None = None,
             command: Callable[[peers.Run], tuple[list[str], dict[str, str]]] | None = None
             ) -> bench.CaseResult:
    """aider (or `command`, a stand-in for tests) on one case in a fresh workspace, scored."""
    from codeloop.agent.snapshots import init_repo

    command = command or peers.COMMANDS[PEER]
    with tempfile.TemporaryDirectory(prefix=f"review-peer-{case.name}-") as tmp:
        scratch = Path(tmp)
        root = cases_mod.materialise(case, scratch / "ws")
        before = cases_mod.serious_findings(root, list(case.files))
        init_repo(root)
        run = peer_run(case, root, scratch, proxy.url, alias, args)
        argv, extra_env = command(run)
        bucket = proxy.new_bucket()
        log = scratch / "output.log"
        with bench.model_lock(args.lock):
            code, timed_out, seconds = peers.launch(argv, run, peers.peer_env(run, extra_env),
                                                    log, args.timeout, proxy)
        if logs is not None:
            shutil.copyfile(log, logs / f"{case.name}.log")
            history = scratch / "aider.chat.history.md"
            if history.is_file():
                shutil.copyfile(history, logs / f"{case.name}.aider.chat.history.md")
        status = peers.aider_status(run, code, timed_out)
        tail = log.read_text(errors="replace").strip().splitlines()
        return bench.scored(
            case, root, before, mode=PEER, status=status, workflow_type="",
            exit_code=-9 if code is None else code,
            tokens=bucket.prompt_tokens + bucket.completion_tokens,
            refinements=[], seconds=round(seconds, 1),
            error="" if code == 0 else (tail[-1][:300] if tail else ""),
            model_calls=bucket.calls)


def main(argv: list[str] | None = None) -> int:
    from codeloop.bench.meta import command_line, machine, now_iso
    from codeloop.config import load_config

    settings = load_config().settings
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--label", required=True, help="names results/review-LABEL.*")
    parser.add_argument("--cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--results-dir", type=Path, default=bench.RESULTS_DIR)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--timeout", type=float, default=1800,
                        help="seconds per case (review_bench.py's cap per review run)")
    parser.add_argument("--lock", type=Path, help="flock held per case (the model lock)")
    parser.add_argument("--n-ctx", type=int, default=settings.n_ctx)
    parser.add_argument("--threads", type=int, default=settings.threads())
    parser.add_argument("--max-tokens", type=int, default=settings.max_tokens)
    args = parser.parse_args(argv)
    try:
        cases = cases_mod.load_cases(args.cases)
    except ValueError as exc:
        parser.exit(2, f"{exc}\n")

    peers.install(peers.PEERS[PEER])
    jsonl = args.results_dir / f"review-{args.label}.jsonl"
    logs = args.results_dir / f"review-{args.label}"
    logs.mkdir(parents=True, exist_ok=True)
    if jsonl.exists() and not args.resume:
        jsonl.unlink()
    results = bench.load_results(jsonl)
    done = {r.case for r in results}
    meta = {"model": f"{args.model} via {peers.PEERS[PEER].requirement}, --edit-format whole",
            "command": command_line(["review_peers.py", *(argv or sys.argv[1:])]),
            "commit": bench.git_commit(), "engine": "llama_cpp.server + counting proxy "
            f"(n_ctx {args.n_ctx}, threads {args.threads}, max_tokens {args.max_tokens})",
            "date": now_iso(), "machine": "{cores} cores, {cpu_model}".format(**machine())}
    with peers.counted_server(args.model, args.n_ctx, args.threads,
                              "review-peers-llama-server.log") as (alias, proxy):
        for case in cases:
            if case.name in done:
                continue
            result = run_case(case, proxy, alias, args, logs=logs)
            results.append(result)
            with jsonl.open("a") as handle:
                handle.write(json.dumps(asdict(result)) + "\n")
            print(f"{case.name} [{PEER}]: {'FIXED' if result.fixed else 'not fixed'} "
                  f"({result.status}; hidden {result.hidden_summary}; violations "
                  f"{len(result.violations)}; {result.tokens} tokens, "
                  f"{result.model_calls} calls, {result.seconds}s)", flush=True)
            (args.results_dir / f"review-{args.label}.md").write_text(
                bench.markdown(results, meta))
    summary = bench.mode_summary(results)
    (logs / "summary.json").write_text(json.dumps({**meta, "summary": {PEER: summary}},
                                                  indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
