"""Review benchmark (not a test): planted problems fixed by `codeloop review --approve`.

For each case in benchmarks/review_tasks/ (see review_cases.py) and each refiner mode, the
workspace is copied to a temp dir and the real CLI runs on it:

    codeloop review FILES --request ... --workspace TMP --approve --json --model M --store S
        --debug [--refiner full]

then the result is scored: fixed (hidden tests pass in the sandbox and the planted finding is
gone), MEDIUM/HIGH security findings introduced, tokens in all and per refinement iteration
(the outcome's `refinements`), seconds. Results go to benchmarks/results/review-LABEL.jsonl (one
record per case and mode, appended as they finish) and review-LABEL.md (the table, with the
exact command and commit); each run's live view (--debug), outcome JSON and events to
review-LABEL/.

    python benchmarks/review_bench.py --model local:qwen2.5-coder-1.5b --refiner both \
        --label 1.5b --lock /tmp/codeloop-model.lock [--cases sql_injection off_by_one] [--resume]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

# A sibling script, not a package: run as a script, its folder is on sys.path already.
import review_cases as cases_mod

RESULTS_DIR = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parents[1]
LOG_LIMIT = 400_000  # bytes of live view kept per run


@dataclass
class CaseResult:
    case: str
    kind: str
    mode: str  # the refiner: diff or full
    fixed: bool
    hidden_passed: bool
    hidden_summary: str
    violations: list[str]
    checks: int  # how many check items the case has (0: the hidden tests are the check)
    status: str  # the outcome's status, or "crash"/"timeout" when the CLI gave none
    workflow_type: str
    exit_code: int
    introduced: list[str]
    changed: list[str]
    tokens: int
    refinements: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    run_id: str = ""
    model_calls: int = 0  # a peer's model calls (codeloop's are in `refinements`)

    @property
    def refine_tokens(self) -> list[int]:
        return [int(r.get("prompt_tokens", 0)) + int(r.get("completion_tokens", 0))
                for r in self.refinements]


def review_argv(case, workspace: Path, mode: str, model: str, store: Path) -> list[str]:
    argv = [sys.executable, "-m", "codeloop", "review", *case.files, "--request", case.request,
            "--workspace", str(workspace), "--approve", "--json", "--model", model,
            "--store", str(store), "--debug"]
    return argv + (["--refiner", "full"] if mode == "full" else [])


def _run_cli(argv: list[str], log: Path, timeout: float) -> tuple[int, str, str]:
    """(exit code, stdout, stderr); stderr (the live view) streams into `log` as it runs, cut
    to its last LOG_LIMIT bytes after; the whole process group dies on timeout (exit -9)."""
    with tempfile.TemporaryFile() as out, log.open("wb") as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=REPO)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = -9
        out.seek(0)
        stdout = out.read().decode("utf-8", "replace")
    stderr = log.read_bytes()[-LOG_LIMIT:].decode("utf-8", "replace")
    log.write_text(stderr)
    return code, stdout, stderr


def save_transcript(store_path: Path, run_id: str, target: Path) -> None:
    """The run's events (debug logs with the model's replies, diffs, model calls) as JSON
    lines, to see afterwards why a case was not fixed."""
    from codeloop.store import RunStore, StoreError

    if not run_id or not store_path.is_file():
        return
    try:
        with RunStore(store_path) as store:
            events = store.events(run_id)
    except StoreError:
        return
    target.write_text("".join(event.model_dump_json() + "\n" for _, event in events))


def run_case(case, mode: str, model: str, *, logs: Path | None = None,
             timeout: float = 1800) -> CaseResult:
    """One case in one refiner mode, through the real CLI, then scored."""
    with tempfile.TemporaryDirectory(prefix=f"review-bench-{case.name}-") as scratch:
        workspace = cases_mod.materialise(case, Path(scratch) / "ws")
        before = cases_mod.serious_findings(workspace, list(case.files))
        store = Path(scratch) / "runs.sqlite"
        argv = review_argv(case, workspace, mode, model, store)
        log = (logs or Path(scratch)) / f"{case.name}.{mode}.log"
        started = time.perf_counter()
        code, stdout, stderr = _run_cli(argv, log, timeout)
        seconds = round(time.perf_counter() - started, 1)
        try:
            outcome = json.loads(stdout)
        except json.JSONDecodeError:
            outcome = {}
        if logs is not None and outcome:
            (logs / f"{case.name}.{mode}.json").write_text(json.dumps(outcome, indent=1))
            save_transcript(store, outcome.get("run_id", ""),
                            logs / f"{case.name}.{mode}.events.jsonl")
        status = outcome.get("status") or ("timeout" if code == -9 else "crash")
        error = ""
        if not outcome:
            lines = stderr.strip().splitlines()
            error = lines[-1][:300] if lines else f"exit {code}, no output"
        elif outcome.get("error_log"):
            error = str(outcome["error_log"][-1])[:300]
        return scored(case, workspace, before, mode=mode, status=status,
                      workflow_type=outcome.get("workflow_type", ""), exit_code=code,
                      tokens=int((outcome.get("tokens") or {}).get("total", 0)),
                      refinements=list(outcome.get("refinements") or []), seconds=seconds,
                      error=error, run_id=outcome.get("run_id", ""))


def scored(case, workspace: Path, before, **run) -> CaseResult:
    """`run`'s record with the case's score on `workspace` as the run left it: the one
    scoring every runner (codeloop's review, a peer) goes through."""
    score = cases_mod.score(case, workspace)
    after = cases_mod.serious_findings(workspace, list(case.files))
    return CaseResult(
        case=case.name, kind=case.kind, fixed=score.fixed, hidden_passed=score.hidden.passed,
        hidden_summary=score.hidden.summary, violations=list(score.violations),
        checks=len(case.absent), introduced=cases_mod.introduced_findings(before, after),
        changed=cases_mod.changed_files(case, workspace), **run)


@contextmanager
def model_lock(path: Path | None) -> Iterator[None]:
    """flock(2) on `path` (what flock(1) takes), held for one review run; no-op without."""
    if path is None:
        yield
        return
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def load_results(path: Path) -> list[CaseResult]:
    if not path.is_file():
        return []
    return [CaseResult(**json.loads(line)) for line in path.read_text().splitlines() if line]


def git_commit() -> str:
    from codeloop.gitutil import git

    head = git(["rev-parse", "--short=12", "HEAD"], REPO, check=False).stdout.strip()
    dirty = git(["status", "--porcelain", "--untracked-files=no"], REPO, check=False).stdout
    return f"{head or 'unknown'}{' (uncommitted changes)' if dirty.strip() else ''}"


def engine_digest() -> str:
    """Where the codeloop package that runs comes from and a digest of its review job, so a
    result names the engine it measured (the tree may change while a long run goes on)."""
    import hashlib

    import codeloop

    package = Path(codeloop.__file__).parent
    digest = hashlib.sha256()
    for path in sorted((package / "review").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".yaml"):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return f"{package} (review/ sha256 {digest.hexdigest()[:12]})"


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def mode_summary(rows: list[CaseResult]) -> dict:
    refine = [t for r in rows for t in r.refine_tokens]
    return {
        "cases": len(rows),
        "fixed": sum(r.fixed for r in rows),
        "hidden_passed": sum(r.hidden_passed for r in rows),
        "finding_gone": sum(not r.violations for r in rows),
        "introduced": sum(len(r.introduced) for r in rows),
        "tokens_total": sum(r.tokens for r in rows),
        "refine_calls": len(refine),
        "refine_tokens_per_call": round(_mean(refine)),
        "refine_prompt_per_call": round(_mean([r.get("prompt_tokens", 0) for row in rows
                                               for r in row.refinements])),
        "refine_completion_per_call": round(_mean([r.get("completion_tokens", 0)
                                                   for row in rows for r in row.refinements])),
        "refine_edits_failed": sum(int(r.get("edits_failed", 0)) for row in rows
                                   for r in row.refinements),
        "seconds_mean": round(_mean([r.seconds for r in rows]), 1),
        "statuses": {s: sum(r.status == s for r in rows) for s in sorted({r.status for r in rows})},
    }


def _cell(row: CaseResult | None) -> list[str]:
    if row is None:
        return ["", "", "", "", "", ""]
    per_call = round(_mean(row.refine_tokens)) if row.refinements else "-"
    if row.fixed:
        fixed = "**yes**"
    elif row.hidden_passed:
        fixed = "tests pass, finding left"
    elif row.checks and not row.violations:
        fixed = "finding gone, tests fail"
    else:
        fixed = "no"
    return [fixed, row.status, str(row.tokens), f"{len(row.refinements)} / {per_call}",
            str(len(row.introduced)), f"{row.seconds:.0f}"]


def markdown(results: list[CaseResult], meta: dict) -> str:
    modes = list(dict.fromkeys(r.mode for r in results))  # diff, full, or a peer's name
    by_key = {(r.case, r.mode): r for r in results}
    names = sorted({r.case for r in results})
    legend = ("- fixed = the hidden tests pass in the sandbox AND the planted finding is gone; "
              "refinements / tokens each = refiner iterations (one prompt, plus one retry "
              "when an edit matched nothing) and their mean prompt + completion tokens; "
              "new = MEDIUM/HIGH security findings introduced.")
    out = [f"# Review benchmark: {meta['model']}", "",
           f"- command: `{meta['command']}`", f"- commit: {meta['commit']}",
           f"- engine: {meta.get('engine', '')}",
           f"- date: {meta['date']}; machine: {meta['machine']}", legend, ""]
    head = ["case", "kind"]
    for mode in modes:
        head += [f"{mode}: fixed", "status", "tokens", "refinements / tokens each", "new", "s"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    kinds = {r.case: r.kind for r in results}
    for name in names:
        cells = [name, kinds[name]]
        for mode in modes:
            cells += _cell(by_key.get((name, mode)))
        out.append("| " + " | ".join(cells) + " |")
    totals = ["refiner", "fixed", "hidden tests pass", "finding gone", "new findings",
              "tokens (all)", "refinements", "tokens per refinement (prompt + completion)",
              "failed edits", "mean s"]
    out += ["", "| " + " | ".join(totals) + " |", "|" + "---|" * len(totals)]
    for mode in modes:
        s = mode_summary([r for r in results if r.mode == mode])
        out.append(f"| {mode} | {s['fixed']}/{s['cases']} | {s['hidden_passed']} | "
                   f"{s['finding_gone']} | {s['introduced']} | {s['tokens_total']} | "
                   f"{s['refine_calls']} | {s['refine_tokens_per_call']} "
                   f"({s['refine_prompt_per_call']} + {s['refine_completion_per_call']}) | "
                   f"{s['refine_edits_failed']} | {s['seconds_mean']} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="model spec, e.g. local:qwen2.5-coder-1.5b")
    parser.add_argument("--refiner", choices=["diff", "full", "both"], default="both")
    parser.add_argument("--cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--label", required=True,
                        help="names the outputs: results/review-LABEL.{jsonl,md} and the "
                        "folder results/review-LABEL/ (live views, outcomes)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.add_argument("--resume", action="store_true",
                        help="keep the records already in review-LABEL.jsonl and run only "
                        "the missing case/mode pairs")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per review run")
    parser.add_argument("--lock", type=Path, help="hold this lock file (flock) during each "
                        "review run only, so other model jobs on the machine run between "
                        "cases rather than alongside (e.g. /tmp/codeloop-model.lock)")
    args = parser.parse_args(argv)

    from codeloop.bench.meta import command_line, machine, now_iso

    try:
        cases = cases_mod.load_cases(args.cases)
    except ValueError as exc:
        parser.exit(2, f"{exc}\n")
    modes = ["diff", "full"] if args.refiner == "both" else [args.refiner]
    jsonl = args.results_dir / f"review-{args.label}.jsonl"
    logs = args.results_dir / f"review-{args.label}"
    logs.mkdir(parents=True, exist_ok=True)
    if jsonl.exists() and not args.resume:
        jsonl.unlink()
    results = load_results(jsonl)
    done = {(r.case, r.mode) for r in results}
    meta = {"model": args.model, "command": command_line(argv and ["review_bench.py", *argv]),
            "commit": git_commit(), "engine": engine_digest(), "date": now_iso(),
            "machine": "{cores} cores, {cpu_model}".format(**machine())}
    for case in cases:
        for mode in modes:
            if (case.name, mode) in done:
                continue
            with model_lock(args.lock):
                result = run_case(case, mode, args.model, logs=logs, timeout=args.timeout)
            results.append(result)
            with jsonl.open("a") as handle:
                handle.write(json.dumps(asdict(result)) + "\n")
            print(f"{case.name} [{mode}]: {'FIXED' if result.fixed else 'not fixed'} "
                  f"({result.status}; hidden {result.hidden_summary}; "
                  f"violations {len(result.violations)}; {result.tokens} tokens, "
                  f"{len(result.refinements)} refinements, {result.seconds}s)", flush=True)
            (args.results_dir / f"review-{args.label}.md").write_text(markdown(results, meta))
    (args.results_dir / f"review-{args.label}.md").write_text(markdown(results, meta))
    summary = {mode: mode_summary([r for r in results if r.mode == mode]) for mode in modes}
    (logs / "summary.json").write_text(json.dumps({**meta, "summary": summary}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
