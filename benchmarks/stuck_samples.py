"""What solve's hot samples (STUCK_TEMPERATURE in solve/rounds.py) did in a pipeline run.

Once a sample repeats an earlier candidate's first failure exactly, solve draws the task's
later samples at STUCK_TEMPERATURE. This reads a run's own records: for every problem where
that happened, the samples drawn hot, whether one was kept, whether the kept code was right
on the hidden tests before the first hot sample and at the end, and the hot samples' tokens.
The same run without the rule is not in the records (its later samples would be other draws
at the prompt's temperature), so "right before" is the code the task held when it got stuck,
not what a colder sample might have found; compare whole runs for that. Candidates are scored
on the hidden tests with stop_rules.py's cache (for measuring only).

    python benchmarks/stuck_samples.py RUN_DIR --oneshot ONESHOT_DIR

It also counts the samples drawn after another in their round: with one sample a round (the
default) these are the extra samples of a stuck task's last round (STUCK_LAST_ROUND_SAMPLES).
"""

from __future__ import annotations

from sample_budget import replay_inputs, replay_parser, save_cache
from stop_rules import hidden_passes

from codeloop.solve.rounds import stuck


def hot_samples(attempts: list[dict]) -> list[int]:
    """The samples drawn after the task got stuck (what solve drew at STUCK_TEMPERATURE)."""
    return [i for i, a in enumerate(attempts)
            if a["strategy"] == "sample" and stuck(attempts[:i])]


def later_in_round(attempts: list[dict]) -> list[int]:
    """Samples drawn after another in their round: with one sample a round (the default),
    the extra samples a stuck task's last round draws (STUCK_LAST_ROUND_SAMPLES)."""
    return [i for i, a in enumerate(attempts) if a["strategy"] == "sample" and any(
        b["strategy"] == "sample" and b["round"] == a["round"] for b in attempts[:i])]


def kept_before(attempts: list[dict], end: int) -> int:
    return max(i for i in range(end) if attempts[i]["accepted"])


def main() -> None:
    args = replay_parser(__doc__).parse_args()
    problems, records, oneshot, cache = replay_inputs(args.run_dir, args.oneshot)

    print("| problem | hot samples (kept?) | passes the examples at the end | right before "
          "| right after | hot tokens |")
    print("|---|---|---|---|---|---|")
    problems_hot = samples = tokens = won = lost = 0
    extra_problems = extra_samples = extra_tokens = extra_won = 0
    for task_id, record in records.items():
        attempts = record["extra"].get("attempts") or []
        hot = hot_samples(attempts)
        if not hot:
            continue
        hidden = hidden_passes(record, problems[task_id], cache)
        before, after = kept_before(attempts, hot[0]), kept_before(attempts, len(attempts))
        final = attempts[after]
        examples = bool(final["total"]) and final["passed"] == final["total"]
        kept = ", ".join("yes" if attempts[i]["accepted"] else "no" for i in hot)
        spent = sum(attempts[i]["tokens"] for i in hot)
        print(f"| {task_id} | {len(hot)} ({kept}) | {examples} | {hidden[before]} "
              f"| {hidden[after]} | {spent} |")
        problems_hot, samples, tokens = problems_hot + 1, samples + len(hot), tokens + spent
        won += hidden[after] and not hidden[before]
        lost += hidden[before] and not hidden[after]
        extra = later_in_round(attempts)
        if extra:
            extra_problems, extra_samples = extra_problems + 1, extra_samples + len(extra)
            extra_tokens += sum(attempts[i]["tokens"] for i in extra)
            extra_won += hidden[after] and not hidden[kept_before(attempts, extra[0])]
    print(f"\n{problems_hot} problems, {samples} hot samples, {tokens} tokens "
          f"({tokens / oneshot:.2f}x one-shot's); won {won}, lost {lost} against the code "
          "each held when it got stuck")
    print(f"of them later samples in a round (a stuck task's last round): {extra_problems} "
          f"problems, {extra_samples} samples, {extra_tokens} tokens "
          f"({extra_tokens / oneshot:.2f}x one-shot's); won {extra_won} against the code "
          "held before them")
    save_cache(args.run_dir, cache)


if __name__ == "__main__":
    main()
