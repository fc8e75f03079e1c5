"""How many of a run's failures the task's own examples reveal (a diagnostic, not a test).

The `solve` pipeline can only repair what its review sees, and its review runs the
examples a task states (for HumanEval the docstring's, for MBPP the first test), never
the hidden tests. Run on a one-shot run, this gives the ceiling of what refinement can
win: each failed problem is "caught" (its code fails its own examples), "missed" (passes
them, fails the hidden tests) or "no examples".

    python benchmarks/visible_failures.py benchmarks/results/humaneval-1.5b-oneshot
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from codeloop.bench.compare import load_run
from codeloop.bench.datasets import load_dataset
from codeloop.bench.task_builder import task_for
from codeloop.docstring_examples.parse import task_assertions
from codeloop.jobs.extract import extract_code
from codeloop.solve.execute import run_tests
from codeloop.solve.extract import join_program


def classify(run_dir: Path, timeout: float) -> dict[str, list[str]]:
    meta, records = load_run(run_dir)
    problems = {p.task_id: p for p in load_dataset(meta["dataset"], meta.get("data_path"))}
    groups: dict[str, list[str]] = {"caught": [], "missed": [], "no examples": []}
    for task_id, record in records.items():
        if record.passed:
            continue
        task = task_for(problems[task_id].public())
        params = [a.arg for a in task.signature_node().args.args]
        assertions = task_assertions(task.examples, task.docstring, task.entry_point,
                                     task.context, params=params)
        if not assertions:
            groups["no examples"].append(task_id)
            continue
        code = extract_code(record.reply, task.entry_point) or ""
        summary = run_tests(join_program(task.context, code), assertions, None, timeout=timeout)
        groups["missed" if summary["all_passed"] else "caught"].append(task_id)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a `codeloop bench --out` directory")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    groups = classify(args.run_dir, args.timeout)
    if args.json:
        print(json.dumps(groups, indent=2))
        return
    failed = sum(len(ids) for ids in groups.values())
    print(f"{failed} failed problem(s) in {args.run_dir}")
    for name, ids in groups.items():
        print(f"  {name}: {len(ids)}  {' '.join(i.split('/')[-1] for i in ids)}")


if __name__ == "__main__":
    main()
