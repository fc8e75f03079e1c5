"""What solve's vote (solve/vote.py) did in a pipeline run, read from the run's own records.

The vote is the last thing a task does, and its samples are the task's last sampled calls,
so every call before it (and its seed) is what the same run without the vote would have
made: cutting a record before its first "vote" candidate gives exactly that run's result.
This prints, for every problem that voted, the samples, whether the code was replaced, and
whether the code was right on the hidden tests before and after; then the whole run with and
without the vote (problems solved, tokens, x one-shot's tokens on the same problems). Candidates are scored on the hidden
tests with stop_rules.py's cache (for measuring only: nothing goes back to the pipeline).

    python benchmarks/vote_effect.py RUN_DIR --oneshot ONESHOT_DIR
"""

from __future__ import annotations

from sample_budget import replay_inputs, replay_parser, save_cache
from stop_rules import hidden_passes, load_records
from stuck_samples import kept_before


def main() -> None:
    args = replay_parser(__doc__).parse_args()
    problems, records, _all, cache = replay_inputs(args.run_dir, args.oneshot)
    # One-shot's tokens on the problems this run holds (a run cut short holds fewer).
    oneshot = sum(r["prompt_tokens"] + r["completion_tokens"]
                  for task_id, r in load_records(args.oneshot).items() if task_id in records)
    print("| problem | vote samples | replaced | right before | right after | tokens |")
    print("|---|---|---|---|---|---|")
    solved = {"with": 0, "without": 0}
    tokens = {"with": 0, "without": 0}
    voted = samples = spent_voting = won = lost = replaced = 0
    for task_id, record in records.items():
        total = record["prompt_tokens"] + record["completion_tokens"]
        attempts = record.get("extra", {}).get("attempts") or []
        votes = [i for i, a in enumerate(attempts) if a["strategy"] == "vote"]
        solved["with"] += record["passed"]
        tokens["with"] += total
        if not votes:
            solved["without"] += record["passed"]
            tokens["without"] += total
            continue
        hidden = hidden_passes(record, problems[task_id], cache)
        before, after = kept_before(attempts, votes[0]), kept_before(attempts, len(attempts))
        spent = sum(attempts[i]["tokens"] for i in votes)
        solved["without"] += hidden[before]
        tokens["without"] += total - spent
        voted, samples, spent_voting = voted + 1, samples + len(votes), spent_voting + spent
        replaced += after != before
        won += hidden[after] and not hidden[before]
        lost += hidden[before] and not hidden[after]
        print(f"| {task_id} | {len(votes)} | {'yes' if after != before else 'no'} "
              f"| {hidden[before]} | {hidden[after]} | {spent} |")
    print(f"\n{voted} problems voted, {samples} samples, {spent_voting} tokens "
          f"({spent_voting / oneshot:.2f}x one-shot's); replaced {replaced}, won {won}, "
          f"lost {lost}")
    print("\n| run | solved | tokens | x one-shot |\n|---|---|---|---|")
    for label in ("with", "without"):
        print(f"| {label} the vote | {solved[label]}/{len(records)} | {tokens[label]} "
              f"| {tokens[label] / oneshot:.2f} |")
    save_cache(args.run_dir, cache)


if __name__ == "__main__":
    main()
