"""summary.json and summary.md from a run's records."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from codeloop.bench.records import (
    INFRA_ERROR,
    SUMMARY_JSON,
    SUMMARY_MD,
    ProblemRecord,
    write_json,
)


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {"total": 0.0, "mean": 0.0, "median": 0.0, "p90": 0.0}
    return {
        "total": round(sum(values), 3),
        "mean": round(statistics.fmean(values), 3),
        "median": round(statistics.median(values), 3),
        "p90": round(percentile(values, 90), 3),
    }


def _token_figures(records: list[ProblemRecord]) -> dict[str, Any]:
    n = len(records) or 1
    calls = sum(r.calls for r in records)
    prompt = sum(r.prompt_tokens for r in records)
    completion = sum(r.completion_tokens for r in records)
    return {
        "calls": calls, "calls_mean": round(calls / n, 3),
        "prompt_tokens": prompt, "prompt_tokens_mean": round(prompt / n, 1),
        "completion_tokens": completion, "completion_tokens_mean": round(completion / n, 1),
        "total_tokens": prompt + completion,
    }


def _stage_figures(records: list[ProblemRecord]) -> dict[str, dict[str, Any]]:
    names: list[str] = []
    for record in records:
        names += [n for n in record.stages if n not in names]
    figures = {}
    for name in names:
        stages = [r.stages[name] for r in records if name in r.stages]
        figures[name] = {
            "problems": len(stages),
            "calls": sum(s.calls for s in stages),
            "prompt_tokens": sum(s.prompt_tokens for s in stages),
            "completion_tokens": sum(s.completion_tokens for s in stages),
            "seconds": spread([s.seconds for s in stages]),
        }
    return figures


def _draft_figures(done: list[ProblemRecord]) -> dict[str, Any]:
    """The pipeline's drafts scored alone (their call is the one-shot baseline's), beside
    the final answers of the same run; nothing for strategies without drafts."""
    drafts = [r.extra["draft"] for r in done if "draft" in r.extra]
    if not drafts:
        return {}
    passed = sum(d["passed"] for d in drafts)
    return {"draft": {"problems": len(drafts), "passed": passed,
                      "pass_at_1": round(100 * passed / len(done), 2),
                      "tokens": sum(d["tokens"] for d in drafts)}}


def summarize(records: dict[str, ProblemRecord], selected: list[str],
              meta: dict[str, Any]) -> dict[str, Any]:
    """Figures over the selected problems that have an answer (all of them when complete).
    A unit the infrastructure lost has no answer: it is listed apart, never scored as
    wrong, and the run stays incomplete until --resume has run it."""
    have = [records[t] for t in selected if t in records]
    lost = [r for r in have if r.outcome == INFRA_ERROR]
    done = [r for r in have if r.outcome != INFRA_ERROR]
    passed = sum(r.passed for r in done)
    return {
        **meta,
        "problems_selected": len(selected),
        "problems_done": len(done),
        "complete": len(done) == len(selected),
        "infra_errors": [{"task_id": r.task_id, "reason": r.reason} for r in lost],
        "passed": passed,
        "pass_at_1": round(100 * passed / len(done), 2) if done else 0.0,
        "outcomes": dict(Counter(r.outcome for r in done).most_common()),
        "llm": _token_figures(done),
        "seconds": spread([r.seconds for r in done]),
        "score_seconds": spread([r.score_seconds for r in done]),
        "stages": _stage_figures(done),
        **_draft_figures(done),
        "problems": [{"task_id": r.task_id, "passed": r.passed, "outcome": r.outcome,
                      "reason": r.reason} for r in done],
    }


def render_markdown(summary: dict[str, Any]) -> str:
    llm, secs = summary["llm"], summary["seconds"]
    machine = summary.get("machine", {})
    lines = [
        f"# {summary['dataset']} · {summary['strategy']} · {summary['model']}",
        "",
        f"**pass@1 {summary['pass_at_1']:.2f}%** ({summary['passed']}/"
        f"{summary['problems_done']}"
        + ("" if summary["complete"] else f", incomplete: {summary['problems_selected']} "
           "selected") + ")",
        "",
        "| figure | total | per problem |",
        "|---|---|---|",
        f"| LLM calls | {llm['calls']} | {llm['calls_mean']} |",
        f"| prompt tokens | {llm['prompt_tokens']} | {llm['prompt_tokens_mean']} |",
        f"| completion tokens | {llm['completion_tokens']} | {llm['completion_tokens_mean']} |",
        (f"| seconds | {secs['total']} | mean {secs['mean']}, median {secs['median']}, "
        f"p90 {secs['p90']} |"),
        "",
    ]
    if summary["stages"]:
        lines += ["## Stages", "",
                  ("| stage | problems | calls | prompt tokens | completion tokens | "
                   "seconds mean | seconds p90 |"),
                  "|---|---|---|---|---|---|---|"]
        for name, s in summary["stages"].items():
            lines.append(f"| {name} | {s['problems']} | {s['calls']} | {s['prompt_tokens']} | "
                         f"{s['completion_tokens']} | {s['seconds']['mean']} | "
                         f"{s['seconds']['p90']} |")
        lines.append("")
    if draft := summary.get("draft"):
        total = llm["prompt_tokens"] + llm["completion_tokens"]
        lines += ["## The drafts alone", "",
                  (f"The first answer of each problem (on HumanEval the one-shot baseline's call, "
                   f"byte for byte), scored on the hidden tests: pass@1 {draft['pass_at_1']:.2f}% "
                   f"({draft['passed']}/{summary['problems_done']}), {draft['tokens']} tokens; "
                   f"the run's answers used {total / max(draft['tokens'], 1):.2f}x those."), ""]
    lines += ["## Outcomes", ""] + [f"- {k}: {v}" for k, v in summary["outcomes"].items()]
    harness = summary["outcomes"].get("harness_error", 0)
    if harness:
        lines += ["", (f"**{harness} problem(s) could not be tested (harness_error: codeloop's "
                       "test harness failed, not the candidate).** pass@1 counts them as "
                       "failed; fix the cause and re-run them.")]
    if lost := summary.get("infra_errors"):
        lines += ["", (f"**{len(lost)} problem(s) have no answer: the infrastructure lost them "
                       "(not counted in pass@1; `--resume` runs them again).**"), ""]
        lines += [f"- {p['task_id']}: {p['reason']}" for p in lost]
    failures = [p for p in summary["problems"] if not p["passed"]]
    if failures:
        lines += ["", "## Failures", "", "| problem | outcome | reason |", "|---|---|---|"]
        for p in failures:
            reason = p["reason"].replace("|", "\\|")
            lines.append(f"| {p['task_id']} | {p['outcome']} | {reason} |")
    lines += ["", "## Run", "",
              f"- date: {summary.get('date', '')}",
              (f"- machine: {machine.get('cores')} cores, {machine.get('cpu_model')}, "
              f"{machine.get('platform')}"),
              f"- codeloop {summary.get('codeloop_version', '')}",
              f"- command: `{summary.get('command', '')}`", ""]
    return "\n".join(lines)


def write_summary(out_dir: Path, summary: dict[str, Any]) -> None:
    write_json(out_dir / SUMMARY_JSON, summary)
    tmp = out_dir / (SUMMARY_MD + ".tmp")
    tmp.write_text(render_markdown(summary), encoding="utf-8")
    tmp.replace(out_dir / SUMMARY_MD)
