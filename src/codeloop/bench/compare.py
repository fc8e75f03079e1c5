"""Two runs side by side, over the problems both ran: pass@1 and its difference, token,
call and time ratios (B over A), and the problems each side alone solved."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from codeloop.bench.records import (
    RESULTS_FILE,
    RUN_FILE,
    ProblemRecord,
    RunDirError,
    read_json,
    read_records,
)
from codeloop.llm.base import TokenTotal


@dataclass(frozen=True)
class Side(TokenTotal):
    label: str
    dataset: str
    strategy: str
    model: str
    problems: int  # problems this run has records for
    passed: int  # over the common problems
    pass_at_1: float
    calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds_mean: float
    seconds_median: float


@dataclass(frozen=True)
class Comparison:
    a: Side
    b: Side
    common: int
    pass_at_1_diff: float  # percentage points, B - A
    tokens_ratio: float | None  # B / A; None when A spent none
    calls_ratio: float | None
    time_ratio: float | None  # mean seconds per problem, B / A
    only_a: list[str]
    only_b: list[str]
    not_common: int  # problems only one run has (left out of every figure)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for side in ("a", "b"):
            data[side]["tokens"] = getattr(self, side).total_tokens
        return data


def load_run(path: str | Path) -> tuple[dict[str, Any], dict[str, ProblemRecord]]:
    """A run directory's run.json and its records."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise RunDirError(f"{path} is not a run directory")
    if not (path / RESULTS_FILE).is_file():
        raise RunDirError(f"{path} has no {RESULTS_FILE}; is it a `codeloop bench` --out?")
    meta = read_json(path / RUN_FILE) if (path / RUN_FILE).is_file() else {}
    records, _ = read_records(path / RESULTS_FILE)
    return meta, records


def _ratio(b: float, a: float) -> float | None:
    return round(b / a, 3) if a else None


def _side(label: str, meta: dict[str, Any], records: dict[str, ProblemRecord],
          common: list[str]) -> Side:
    chosen = [records[t] for t in common]
    seconds = [r.seconds for r in chosen]
    passed = sum(r.passed for r in chosen)
    return Side(
        label=label, dataset=str(meta.get("dataset", "?")),
        strategy=str(meta.get("strategy", "?")), model=str(meta.get("model", "?")),
        problems=len(records), passed=passed,
        pass_at_1=round(100 * passed / len(chosen), 2) if chosen else 0.0,
        calls=sum(r.calls for r in chosen),
        prompt_tokens=sum(r.prompt_tokens for r in chosen),
        completion_tokens=sum(r.completion_tokens for r in chosen),
        seconds_mean=round(statistics.fmean(seconds), 3) if seconds else 0.0,
        seconds_median=round(statistics.median(seconds), 3) if seconds else 0.0,
    )


def compare_records(a: tuple[str, dict[str, Any], dict[str, ProblemRecord]],
                    b: tuple[str, dict[str, Any], dict[str, ProblemRecord]]) -> Comparison:
    (label_a, meta_a, rec_a), (label_b, meta_b, rec_b) = a, b
    common = [t for t in rec_a if t in rec_b]
    if not common:
        raise RunDirError(f"{label_a} and {label_b} have no problem in common")
    side_a = _side(label_a, meta_a, rec_a, common)
    side_b = _side(label_b, meta_b, rec_b, common)
    return Comparison(
        a=side_a, b=side_b, common=len(common),
        pass_at_1_diff=round(side_b.pass_at_1 - side_a.pass_at_1, 2),
        tokens_ratio=_ratio(side_b.total_tokens, side_a.total_tokens),
        calls_ratio=_ratio(side_b.calls, side_a.calls),
        time_ratio=_ratio(side_b.seconds_mean, side_a.seconds_mean),
        only_a=[t for t in common if rec_a[t].passed and not rec_b[t].passed],
        only_b=[t for t in common if rec_b[t].passed and not rec_a[t].passed],
        not_common=len(set(rec_a) ^ set(rec_b)),
    )


def compare_runs(path_a: str | Path, path_b: str | Path) -> Comparison:
    meta_a, rec_a = load_run(path_a)
    meta_b, rec_b = load_run(path_b)
    return compare_records((str(path_a), meta_a, rec_a), (str(path_b), meta_b, rec_b))
