"""What solve's edge rounds (solve/edges.py) did in a pipeline run, read from its own records.

Edge rounds are always a problem's last candidates: they come only once the code passes
every example, and after them the run ends. So the same run without them is exact: the code
kept before the first edge round, and the tokens spent before it. With one edge round at
most: the first edge candidate drawn, the second dropped. Candidates are scored on the
hidden tests with stop_rules.py's cache (for measuring only).

    python benchmarks/edge_rounds.py RUN_DIR --oneshot ONESHOT_DIR
"""

from __future__ import annotations

from sample_budget import Pick, replay, replay_inputs, replay_parser, save_cache
from stop_rules import hidden_passes


def edge_rounds_at_most(limit: int) -> Pick:
    def pick(attempts: list[dict]) -> tuple[list[int], int]:
        drawn, edges = [], 0
        for i, attempt in enumerate(attempts):
            if attempt["strategy"] == "edge":
                edges += 1
                if edges > limit:
                    continue
            drawn.append(i)
        return drawn, max(i for i in drawn if attempts[i]["accepted"])
    return pick


def main() -> None:
    args = replay_parser(__doc__).parse_args()
    problems, records, oneshot, cache = replay_inputs(args.run_dir, args.oneshot)

    print("| problem | edge candidates (kept?) | right before | right after | edge tokens |")
    print("|---|---|---|---|---|")
    for task_id, record in records.items():
        attempts = record["extra"].get("attempts") or []
        edges = [i for i, a in enumerate(attempts) if a["strategy"] == "edge"]
        if not edges:
            continue
        hidden = hidden_passes(record, problems[task_id], cache)
        before = max(i for i in range(edges[0]) if attempts[i]["accepted"])
        after = max(i for i in range(len(attempts)) if attempts[i]["accepted"])
        kept = ", ".join("yes" if attempts[i]["accepted"] else "no" for i in edges)
        print(f"| {task_id} | {len(edges)} ({kept}) | {hidden[before]} | {hidden[after]} "
              f"| {sum(attempts[i]['tokens'] for i in edges)} |")

    print("\n| edge rounds at most | solved | tokens | x one-shot |\n|---|---|---|---|")
    for limit in (0, 1, 2):
        solved, tokens = replay(records, problems, cache, edge_rounds_at_most(limit))
        print(f"| {limit} | {solved}/{len(records)} | {tokens} | {tokens / oneshot:.2f} |")
    save_cache(args.run_dir, cache)


if __name__ == "__main__":
    main()
