"""A whole-dataset figure from a run on the failed drafts only, labelled as such.

The pipeline's draft is the one-shot prompt, greedy, and a draft that passes its examples
ends the problem: a change to what happens after a wrong draft cannot touch those problems.
When a session has no time for a full run, the changed pipeline is run on the problems whose
draft failed its examples in an earlier full run (`--ids`), and this script takes every
other problem's record from that full run. The output says so in `run.json`
(`composed_from`), and the README quotes it as composed, never as one run.

Known limit of runs made before every problem started from an empty prompt cache
(`forget_prompt_cache`, 2026-11-29): llama.cpp's greedy answers there depended on the
previous problem's calls, so a few drafts of a subset run may differ from the full run's.

    python benchmarks/compose_run.py FULL_RUN SUBSET_RUN OUT_DIR [--why TEXT]

The same holds for any change that acts only after a point a problem's record shows (say,
after a task's last round): with `--seed`, a problem the change cannot reach gives the full
run's record again, and `--why` says which problems were re-run and why.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from codeloop.bench.records import RESULTS_FILE, read_json, read_records, write_json
from codeloop.bench.report import summarize, write_summary

FAILED_DRAFTS = ("the changed pipeline ran on the problems whose draft failed its examples in "
                 "the full run; every other problem's record is the full run's")


def compose(full: Path, subset: Path, out: Path, why: str = FAILED_DRAFTS) -> dict:
    base, _ = read_records(full / RESULTS_FILE)
    changed, _ = read_records(subset / RESULTS_FILE)
    missing = sorted(set(changed) - set(base))
    if missing:
        raise SystemExit(f"{subset} has problems the full run lacks: {', '.join(missing[:5])}")
    records = {**base, **changed}
    meta = read_json(subset / "run.json")
    meta["composed_from"] = {
        "full_run": str(full), "changed_run": str(subset), "changed_problems": len(changed),
        "why": why}
    out.mkdir(parents=True, exist_ok=True)
    with (out / RESULTS_FILE).open("w", encoding="utf-8") as sink:
        for task_id in base:  # the dataset's order, as in the full run
            sink.write(records[task_id].model_dump_json() + "\n")
    write_json(out / "run.json", meta)
    summary = summarize(records, list(base), meta)
    write_summary(out, summary)
    shutil.copy(subset / "run.json", out / "changed_run.json")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("full_run", type=Path)
    parser.add_argument("subset_run", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--why", default=FAILED_DRAFTS,
                        help="which problems the subset re-ran and why the rest cannot change")
    args = parser.parse_args()
    summary = compose(args.full_run, args.subset_run, args.out_dir, args.why)
    print(f"{summary['passed']}/{summary['problems_done']} "
          f"({summary['pass_at_1']} %), tokens {summary['llm']}")


if __name__ == "__main__":
    main()
