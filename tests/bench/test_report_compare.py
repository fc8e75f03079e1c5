from __future__ import annotations

import pytest

from codeloop.bench.compare import compare_runs
from codeloop.bench.records import ProblemRecord, ResultsLog, RunDirError, write_json
from codeloop.bench.report import percentile, spread, summarize


def test_percentile_interpolates_like_numpy():
    values = [5.0, 1.0, 3.0, 2.0, 4.0, 10.0, 6.0, 7.0, 8.0, 9.0]
    assert percentile(values, 90) == pytest.approx(9.1)  # numpy.percentile(values, 90)
    assert percentile(values, 50) == pytest.approx(5.5)
    assert percentile([4.0], 90) == 4.0 and percentile([], 90) == 0.0
    assert spread([1.0, 2.0, 6.0]) == {"total": 9.0, "mean": 3.0, "median": 2.0, "p90": 5.2}


def _record(task_id, passed, prompt, completion, seconds, calls=1):
    return ProblemRecord(task_id=task_id, passed=passed, outcome="passed" if passed else
                         "wrong_answer", reason="", prompt_tokens=prompt,
                         completion_tokens=completion, seconds=seconds, calls=calls)


def _write_run(path, strategy, records):
    path.mkdir()
    write_json(path / "run.json", {"dataset": "humaneval", "strategy": strategy,
                                   "model": "m"})
    log = ResultsLog(path / "results.jsonl")
    for record in records:
        log.append(record)


def test_summary_counts_only_selected_problems():
    records = {r.task_id: r for r in [_record("a", True, 10, 5, 1.0),
                                      _record("b", False, 20, 5, 3.0),
                                      _record("z", True, 99, 99, 9.0)]}
    summary = summarize(records, ["a", "b", "c"], {"dataset": "d"})
    assert summary["problems_done"] == 2 and not summary["complete"]
    assert summary["pass_at_1"] == 50.0
    assert summary["llm"]["prompt_tokens"] == 30 and summary["llm"]["completion_tokens_mean"] == 5
    assert summary["seconds"]["mean"] == 2.0


def test_compare_arithmetic(tmp_path):
    _write_run(tmp_path / "a", "oneshot", [
        _record("P/1", True, 100, 50, 2.0), _record("P/2", False, 100, 50, 4.0),
        _record("P/3", True, 100, 50, 6.0), _record("P/4", False, 100, 50, 8.0),
        _record("P/9", True, 1000, 1000, 100.0),  # only A has it: left out
    ])
    _write_run(tmp_path / "b", "pipeline", [
        _record("P/1", True, 400, 200, 10.0, calls=4), _record("P/2", True, 400, 200, 20.0, 4),
        _record("P/3", False, 400, 200, 30.0, 4), _record("P/4", True, 400, 200, 40.0, 4),
    ])
    c = compare_runs(tmp_path / "a", tmp_path / "b")
    assert c.common == 4 and c.not_common == 1
    assert (c.a.pass_at_1, c.b.pass_at_1, c.pass_at_1_diff) == (50.0, 75.0, 25.0)
    assert (c.a.total_tokens, c.b.total_tokens, c.tokens_ratio) == (600, 2400, 4.0)
    assert c.calls_ratio == 4.0
    assert (c.a.seconds_mean, c.b.seconds_mean, c.time_ratio) == (5.0, 25.0, 5.0)
    assert c.only_a == ["P/3"] and c.only_b == ["P/2", "P/4"]
    assert c.a.strategy == "oneshot" and c.b.strategy == "pipeline"
    data = c.as_dict()
    assert data["a"]["tokens"] == 600 and data["only_b"] == ["P/2", "P/4"]


def test_compare_needs_run_directories(tmp_path):
    with pytest.raises(RunDirError, match="not a run directory"):
        compare_runs(tmp_path / "missing", tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="has no results.jsonl"):
        compare_runs(tmp_path / "empty", tmp_path / "empty")
    _write_run(tmp_path / "x", "oneshot", [_record("P/1", True, 1, 1, 1.0)])
    _write_run(tmp_path / "y", "oneshot", [_record("P/2", True, 1, 1, 1.0)])
    with pytest.raises(RunDirError, match="no problem in common"):
        compare_runs(tmp_path / "x", tmp_path / "y")
