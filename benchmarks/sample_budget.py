"""Replay solve's rounds with a second sample per round on a pipeline run's own records.

A run made with one sample per round and more rounds (`--max-refinements 5`) holds, for every
problem, its candidates in order with their cost. Drawing a round's second sample is the
same as drawing the next of those samples one round earlier, so cutting the record where
the policy of solve/rounds.py would stop (three rounds; a second sample only while the task
has spent under BUDGET x its draft's tokens, the next sample costing what the last did)
approximates a run with that policy: the samples differ only in which failure they were
told. Candidates are scored on the hidden tests with stop_rules.py's cache (for measuring
only).

    python benchmarks/sample_budget.py RUN_DIR --oneshot ONESHOT_DIR [--budget 0 8 9 10]
    python benchmarks/sample_budget.py RUN_DIR --oneshot ONESHOT_DIR --drop-second

`--drop-second` reads a run made with two samples a round the other way: it removes every
round's second sample from the records and keeps what review would then have kept (the
candidate passing most examples, the earlier on ties), which is the run with one sample a
round if the first samples had come out the same.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from stop_rules import hidden_passes, load_records

from codeloop.bench.datasets import load_dataset


def passes(attempt: dict) -> bool:
    return bool(attempt["total"]) and attempt["passed"] == attempt["total"]


def candidates_used(attempts: list[dict], budget: float, rounds: int = 3,
                    per_round: int = 2) -> int:
    """How many of the recorded candidates the policy draws (draft and planned generation
    first, then up to `per_round` samples in each of `rounds` rounds)."""
    used = min(2, len(attempts))
    if any(passes(a) for a in attempts[:used]):
        return 1 if passes(attempts[0]) else used
    for _ in range(rounds):
        for k in range(per_round):
            if used >= len(attempts):
                return used
            spent = sum(a["tokens"] for a in attempts[:used])
            if k and spent + attempts[used - 1]["tokens"] > budget * attempts[0]["tokens"]:
                break
            used += 1
            if passes(attempts[used - 1]):
                return used
    return used


Pick = Callable[[list[dict]], tuple[list[int], int]]  # candidates drawn, the one kept
CACHE = "attempt_scores.json"


def with_budget(budget: float) -> Pick:
    def pick(attempts: list[dict]) -> tuple[list[int], int]:
        used = candidates_used(attempts, budget)
        return list(range(used)), max(i for i in range(used) if attempts[i]["accepted"])
    return pick


def without_second_samples(attempts: list[dict]) -> tuple[list[int], int]:
    """Every round's second sample removed; kept is what review would then keep (the
    candidate passing most examples, the earlier on ties)."""
    drawn = [i for i, a in enumerate(attempts)
             if not (i and a["strategy"] == "sample" and attempts[i - 1]["strategy"] == "sample"
                     and attempts[i - 1]["round"] == a["round"])]
    kept, best = drawn[0], -1
    for i in drawn:
        if attempts[i]["passed"] > best:
            kept, best = i, attempts[i]["passed"]
    return drawn, kept


def replay(records: dict, problems: dict, cache: dict, pick: Pick) -> tuple[int, int]:
    """Problems solved and tokens spent if each record had drawn what `pick` says."""
    solved = tokens = 0
    for task_id, record in records.items():
        attempts = record["extra"].get("attempts")
        if not attempts:
            solved += record["passed"]
            tokens += record["prompt_tokens"] + record["completion_tokens"]
            continue
        drawn, kept = pick(attempts)
        solved += hidden_passes(record, problems[task_id], cache)[kept]
        tokens += sum(attempts[i]["tokens"] for i in drawn)
    return solved, tokens


def replay_parser(doc: str) -> argparse.ArgumentParser:
    """The arguments every replay script takes: a pipeline run and the one-shot run."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--oneshot", type=Path, required=True)
    return parser


def replay_inputs(run_dir: Path, oneshot_dir: Path) -> tuple[dict, dict, int, dict]:
    """A run's problems and records, one-shot's tokens, and the run's cache of hidden-test
    scores (attempt_scores.json, written back by save_cache)."""
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    problems = {p.task_id: p for p in load_dataset(meta["dataset"], meta["data_path"])}
    oneshot = sum(r["prompt_tokens"] + r["completion_tokens"]
                  for r in load_records(oneshot_dir).values())
    cache_file = run_dir / CACHE
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    return problems, load_records(run_dir), oneshot, cache


def save_cache(run_dir: Path, cache: dict) -> None:
    (run_dir / CACHE).write_text(json.dumps(cache), encoding="utf-8")


def main() -> None:
    parser = replay_parser(__doc__)
    parser.add_argument("--budget", type=float, nargs="+", default=[0, 8, 9, 10])
    parser.add_argument("--drop-second", action="store_true")
    args = parser.parse_args()
    problems, records, oneshot, cache = replay_inputs(args.run_dir, args.oneshot)
    rows: list[tuple[str, Pick]] = [
        (f"{b:g}" if b else "0 (one sample a round)", with_budget(b)) for b in args.budget]
    if args.drop_second:
        ran = sum(r["passed"] for r in records.values())
        spent = sum(r["prompt_tokens"] + r["completion_tokens"] for r in records.values())
        print("| replay | solved | tokens | x one-shot |\n|---|---|---|---|")
        print(f"| as run | {ran}/{len(records)} | {spent} | {spent / oneshot:.2f} |")
        rows = [("without the second samples", without_second_samples)]
    else:
        print("| budget (x draft) | solved | tokens | x one-shot |\n|---|---|---|---|")
    for label, pick in rows:
        solved, tokens = replay(records, problems, cache, pick)
        print(f"| {label} | {solved}/{len(records)} | {tokens} | {tokens / oneshot:.2f} |")
    save_cache(args.run_dir, cache)


if __name__ == "__main__":
    main()
