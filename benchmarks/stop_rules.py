"""Measure when solve's refinement could stop, on a pipeline run's own records.

Every pipeline record keeps its candidates in order (`extra.attempts`: strategy, examples
passed, tokens spent since the previous candidate, the code). A stopping rule decides after
each candidate from that candidate and the ones before it only, and nothing a later round
does changes an earlier one, so cutting the record where a rule stops gives exactly what a
run with that rule would have produced: the kept code is the last accepted candidate before
the cut, its cost the tokens up to the cut. This script scores every candidate on the
hidden tests (for measuring only: nothing here goes back to the pipeline) and prints, for
each rule, problems solved, tokens and the problems it loses against not stopping.

    python benchmarks/stop_rules.py RUN_DIR [--base OLDER_RUN_DIR] [--data PATH]

`--base` fills the problems RUN_DIR did not run (a run on the failed drafts only) from an
older full run of the same drafts, so totals cover the whole dataset; the one-shot tokens
for the ratio come from `--oneshot` (a one-shot run directory).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from codeloop.bench.datasets import load_dataset
from codeloop.bench.program import build_program
from codeloop.bench.scoring import score
from codeloop.bench.task_builder import task_for
from codeloop.solve.extract import join_program
from codeloop.solve.rounds import first_failure  # solve's own test for a stuck sample

Attempts = list[dict]
Rule = Callable[[Attempts], bool]  # True: stop after the last of these candidates


def never(attempts: Attempts) -> bool:
    return False


def max_candidates(n: int) -> Rule:
    return lambda attempts: len(attempts) >= n


def repeated_failure(attempts: Attempts) -> bool:
    """The newest candidate fails the first failing case exactly as an earlier one did."""
    line = first_failure(attempts[-1])
    return bool(line) and any(first_failure(a) == line for a in attempts[:-1])


def repeated_failure_twice(attempts: Attempts) -> bool:
    """Two candidates after the draft have each repeated an earlier failure."""
    repeats = sum(1 for i in range(1, len(attempts)) if repeated_failure(attempts[: i + 1]))
    return repeats >= 2


def none_passes_any(n: int) -> Rule:
    """After n candidates, none passed a single example."""
    return lambda attempts: len(attempts) >= n and all(a["passed"] == 0 for a in attempts)


RULES: dict[str, Rule] = {
    "no early stop": never,
    "at most 6 candidates (4 rounds)": max_candidates(6),
    "at most 5 candidates (3 rounds)": max_candidates(5),
    "at most 4 candidates (2 rounds)": max_candidates(4),
    "at most 3 candidates (1 round)": max_candidates(3),
    "stop at the first repeated failure": repeated_failure,
    "stop at the second repeated failure": repeated_failure_twice,
    "stop when 3 candidates pass no example": none_passes_any(3),
    "stop when 4 candidates pass no example": none_passes_any(4),
}


def cut(attempts: Attempts, rule: Rule) -> int:
    """How many candidates a run with `rule` makes."""
    for i in range(1, len(attempts) + 1):
        if attempts[i - 1]["passed"] == attempts[i - 1]["total"] and attempts[i - 1]["total"]:
            return i  # review's verdict already ends the run here
        if i >= 2 and rule(attempts[:i]):  # the draft alone is never cut
            return i
    return len(attempts)


def load_records(run_dir: Path) -> dict[str, dict]:
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["task_id"]: r for r in map(json.loads, lines)}


def hidden_passes(record: dict, problem, cache: dict) -> list[bool]:
    """Each candidate scored on the hidden tests, built like the pipeline's final program."""
    key = record["task_id"]
    if key not in cache:
        task = task_for(problem.public())
        results = []
        for attempt in record["extra"]["attempts"]:
            if not attempt["code"]:
                results.append(False)
                continue
            program = build_program(problem.public(),
                                    f"```python\n{join_program(task.context, attempt['code'])}\n```")
            results.append(score(problem, program.code).passed)
        cache[key] = results
    return cache[key]


def evaluate(records: dict[str, dict], base: dict[str, dict], problems: dict, cache: dict,
             rule: Rule) -> tuple[int, int, list[str]]:
    solved, tokens, solved_ids = 0, 0, []
    for task_id in problems:
        record = records.get(task_id) or base[task_id]
        attempts = record.get("extra", {}).get("attempts")
        if not attempts:
            solved += record["passed"]
            tokens += record["prompt_tokens"] + record["completion_tokens"]
            solved_ids += [task_id] if record["passed"] else []
            continue
        n = cut(attempts, rule)
        kept = max(i for i in range(n) if attempts[i]["accepted"])
        passed = hidden_passes(record, problems[task_id], cache)[kept]
        solved += passed
        tokens += sum(a["tokens"] for a in attempts[:n])
        solved_ids += [task_id] if passed else []
    return solved, tokens, solved_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--oneshot", type=Path)
    parser.add_argument("--data")
    args = parser.parse_args()
    meta = json.loads((args.run_dir / "run.json").read_text(encoding="utf-8"))
    problems = {p.task_id: p for p in load_dataset(meta["dataset"], args.data or meta["data_path"])}
    records = load_records(args.run_dir)
    base = load_records(args.base) if args.base else {}
    if not base:
        problems = {k: v for k, v in problems.items() if k in records}
    oneshot = 0
    if args.oneshot:
        oneshot = sum(r["prompt_tokens"] + r["completion_tokens"]
                      for r in load_records(args.oneshot).values() if r["task_id"] in problems)
    cache_file = args.run_dir / "attempt_scores.json"
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    reference = None
    print("| rule | solved | % | tokens | x one-shot | lost against no early stop |")
    print("|---|---|---|---|---|---|")
    for name, rule in RULES.items():
        solved, tokens, ids = evaluate(records, base, problems, cache, rule)
        reference = reference if reference is not None else set(ids)
        lost = sorted(reference - set(ids))
        ratio = f"{tokens / oneshot:.2f}" if oneshot else "-"
        print(f"| {name} | {solved}/{len(problems)} | {100 * solved / len(problems):.1f} "
              f"| {tokens} | {ratio} | {', '.join(lost) or '-'} |")
    cache_file.write_text(json.dumps(cache), encoding="utf-8")


if __name__ == "__main__":
    main()
