"""Runs a strategy over problems: solve (strategy, sees the public problem only), score
(sandbox, hidden tests), append the record, report progress; a summary at the end, and
also when interrupted.

Workers and a local model: `LocalLLM` shares one llama.cpp instance per (model, n_ctx,
threads) and serialises calls on it, so W workers take turns on the model while the
sandbox runs (scoring, the pipeline's own test runs) overlap with the next generation.
Measured on the 2-core machine (0.5B, oneshot, 4 HumanEval problems, another process
busy on the machine): one 1-thread instance 38.1 s, two 1-thread instances in parallel
36.7 s, and anything with 2 llama.cpp threads over 400 s (its threads spin-wait when a core
is taken). The sandbox's ~0.1 s per problem is too small to be worth overlapping. So W=1 is
the default and W>1 shares the one instance; W>1 pays off with a server backend. What
matters on 2 cores is n_threads: 2 on an idle machine, 1 (CODELOOP_N_THREADS=1) when
anything else runs.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codeloop.bench.datasets import Problem
from codeloop.bench.problem_run import run_problem
from codeloop.bench.records import (
    RESULTS_FILE,
    RUN_FILE,
    ProblemRecord,
    ResultsLog,
    RunDirError,
    read_json,
    read_records,
    write_json,
)
from codeloop.bench.report import summarize, write_summary
from codeloop.bench.strategies.base import Strategy
from codeloop.bench.unit import INFRA_ERROR, BenchUnit, infra_record, run_unit
from codeloop.events import EventBus, Progress
from codeloop.jobs.executor import Executor
from codeloop.llm.base import LLM

# What must match for --resume to continue a run rather than mix two different ones.
RESUME_KEYS = ("dataset", "strategy", "model")

OnRecord = Callable[[ProblemRecord, int, int, int], None]  # record, done, passed, total


@dataclass
class RunOutcome:
    summary: dict[str, Any]
    out_dir: Path
    ran: int  # problems run by this call (the rest were on disk already)
    skipped_lines: int  # unreadable lines in results.jsonl (those problems ran again)


def prepare_out_dir(out_dir: Path, meta: dict[str, Any], resume: bool) -> None:
    """A fresh directory, or with --resume one holding the same dataset/strategy/model;
    RunDirError (not a traceback) when it cannot be created or written."""
    try:
        _prepare_out_dir(out_dir, meta, resume)
    except OSError as exc:
        raise RunDirError(f"cannot write the run directory {out_dir} "
                          f"({exc.strerror or exc}): choose another --out") from exc


def _prepare_out_dir(out_dir: Path, meta: dict[str, Any], resume: bool) -> None:
    run_file = out_dir / RUN_FILE
    if out_dir.exists() and not out_dir.is_dir():
        raise RunDirError(f"{out_dir} exists and is not a directory")
    has_run = run_file.is_file() or (out_dir / RESULTS_FILE).is_file()
    if has_run and not resume:
        raise RunDirError(f"{out_dir} already holds a run; pass --resume to continue it, "
                          "or choose another --out")
    out_dir.mkdir(parents=True, exist_ok=True)
    if resume and run_file.is_file():
        previous = read_json(run_file)
        different = [f"{k}: {previous.get(k)!r} there, {meta.get(k)!r} now"
                     for k in RESUME_KEYS if previous.get(k) != meta.get(k)]
        if different:
            raise RunDirError(f"cannot resume {out_dir}: " + "; ".join(different))
        previous.setdefault("resumed", []).append(
            {"date": meta.get("date"), "command": meta.get("command"),
             "runtime": meta.get("runtime", {})})
        write_json(run_file, previous)
    else:
        write_json(run_file, meta)


def run_bench(
    problems: list[Problem],
    strategy: Strategy,
    llm: LLM,
    out_dir: Path,
    meta: dict[str, Any],
    *,
    workers: int = 1,
    resume: bool = False,
    timeout: float = 10.0,
    on_record: OnRecord | None = None,
    bus: EventBus | None = None,
    executor: Executor | None = None,
    unit: BenchUnit | None = None,
) -> RunOutcome:
    """Run what is not yet on disk; summary.json/.md are written even when interrupted.

    Without `executor` the problems run in this process (`workers` threads sharing `llm`).
    With one (Ray), each problem is `unit` with its problem filled in, run by `run_unit`
    wherever the executor puts it; only this function writes the run directory."""
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if executor is not None and unit is None:
        raise ValueError("an executor runs units: pass the unit template too")
    out_dir = Path(out_dir)
    prepare_out_dir(out_dir, meta, resume)
    results_path = out_dir / RESULTS_FILE
    records, skipped = read_records(results_path)
    selected = [p.task_id for p in problems]
    # An infrastructure error is not an answer: --resume runs that problem again.
    todo = [p for p in problems if p.task_id not in records
            or records[p.task_id].outcome == INFRA_ERROR]
    log = ResultsLog(results_path)
    total = len(problems)
    state = {"done": total - len(todo), "passed": sum(
        records[t].passed for t in selected if t in records)}

    def finish(record: ProblemRecord) -> None:
        log.append(record)
        records[record.task_id] = record
        if record.outcome != INFRA_ERROR:
            state["done"] += 1
            state["passed"] += record.passed
        if bus is not None:
            bus.emit(Progress(done=state["done"], total=total,
                              message=f"{record.task_id}: {record.outcome}"))
        if on_record is not None:
            on_record(record, state["done"], state["passed"], total)

    try:
        if executor is not None:
            assert unit is not None
            _run_units(todo, executor, unit, finish)
        elif workers == 1:
            for problem in todo:
                finish(run_problem(strategy, problem, llm, timeout=timeout))
        else:
            _run_parallel(todo, strategy, llm, timeout, workers, finish)
    finally:
        # results.jsonl is the truth: a stop (Ctrl-C, kill) can land after a record was
        # appended and before it was counted here (seen under load: 2 records, a summary
        # of 1). Everything it holds, not only this call's selection: a resumed run with
        # --limit 3 still sums up all 40 problems it has.
        try:
            records = read_records(results_path)[0]
        except RunDirError:
            pass  # unreadable now: the records this process counted
        chosen = set(selected)
        covered = selected + [t for t in records if t not in chosen]
        summary = summarize(records, covered, meta)
        try:
            write_summary(out_dir, summary)
        except OSError as exc:
            raise RunDirError(f"cannot write the summary in {out_dir} "
                              f"({exc.strerror or exc}); results.jsonl holds the records: "
                              "rerun with --resume to write it") from exc
    return RunOutcome(summary, out_dir, len(todo), skipped)


def _run_parallel(todo: list[Problem], strategy: Strategy, llm: LLM, timeout: float,
                  workers: int, finish: Callable[[ProblemRecord], None]) -> None:
    """Records are written from this thread only, as each problem completes."""
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bench")
    try:
        pending = {executor.submit(run_problem, strategy, p, llm, timeout=timeout)
                   for p in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                finish(future.result())
    finally:
        # On Ctrl-C or an aborting error: drop queued problems; those in flight finish
        # on their own, unrecorded, and --resume runs them again.
        executor.shutdown(wait=False, cancel_futures=True)


def _run_units(todo: list[Problem], executor: Executor, template: BenchUnit,
               finish: Callable[[ProblemRecord], None]) -> None:
    """At most `executor.max_workers` units in flight; records come back here and are
    written from this thread only. A unit the cluster lost on every try is recorded as an
    infrastructure error; an error the unit itself raised (the model unreachable) stops the
    run. On Ctrl-C or such a stop the outstanding units are cancelled: nothing of theirs is
    recorded, and --resume runs them again."""
    queue = list(reversed(todo))
    pending: dict[Future[ProblemRecord], str] = {}
    infra = getattr(executor, "infra_failure", lambda _exc: None)
    cause = getattr(executor, "cause", lambda exc: exc)
    try:
        while queue or pending:
            while queue and len(pending) < executor.max_workers:
                problem = queue.pop()
                unit = replace(template, problem=problem)
                pending[executor.submit(run_unit, unit)] = problem.task_id
            done, _ = wait(set(pending), return_when=FIRST_COMPLETED)
            for future in done:
                task_id = pending.pop(future)
                try:
                    record = future.result()
                except Exception as exc:  # noqa: BLE001 - sorted just below
                    reason = infra(exc)
                    if reason is None:
                        raise cause(exc) from None
                    record = infra_record(task_id, reason)
                finish(record)
    except BaseException:
        executor.shutdown(wait=False, cancel_pending=True)
        raise
