"""benchmarks/stop_rules.py cuts a pipeline record where a stopping rule would have ended the
run, and benchmarks/compose_run.py labels a whole-dataset figure made from a subset run."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from codeloop.bench.records import ProblemRecord

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rules():
    yield _load("stop_rules")
    sys.modules.pop("stop_rules", None)


@pytest.fixture(scope="module")
def composer():
    yield _load("compose_run")
    sys.modules.pop("compose_run", None)


def _attempt(passed: int, *, accepted: bool, tokens: int = 100, feedback: str = "f(1) returned 2",
             code: str | None = "def f(x):\n    return x\n") -> dict:
    return {"passed": passed, "total": 1, "accepted": accepted, "tokens": tokens,
            "feedback": feedback if passed < 1 else "all tests passed", "code": code,
            "strategy": "sample", "round": 0}


def test_the_draft_is_never_cut_and_a_passing_candidate_ends_the_run(rules):
    wrong = [_attempt(0, accepted=True)] + [_attempt(0, accepted=False)] * 4
    assert rules.cut(wrong, rules.max_candidates(1)) == 2  # the draft alone is never cut
    assert rules.cut(wrong, rules.max_candidates(4)) == 4
    assert rules.cut(wrong, rules.never) == 5
    won = wrong[:2] + [_attempt(1, accepted=True)] + wrong[3:]
    assert rules.cut(won, rules.never) == 3


def test_a_repeated_failure_is_the_same_first_failing_line(rules):
    a = _attempt(0, accepted=True, feedback="f(1) returned 2, expected 3")
    b = _attempt(0, accepted=False, feedback="f(1) returned 4, expected 3")
    assert not rules.repeated_failure([a, b])
    assert rules.repeated_failure([a, b, dict(a, accepted=False)])
    assert not rules.repeated_failure_twice([a, b, dict(a, accepted=False)])
    assert rules.repeated_failure_twice([a, b, dict(a), dict(b)])


def test_a_cut_record_keeps_its_last_accepted_candidate_scored_on_hidden_tests(
        rules, humaneval, tmp_path):
    he0 = humaneval["HumanEval/0"]
    wrong = he0.prompt + "    return True\n"
    right = he0.prompt + he0.reference
    attempts = [_attempt(0, accepted=True, code=wrong, tokens=300),
                _attempt(0, accepted=False, code=None, tokens=200),
                _attempt(1, accepted=True, code=right, tokens=150)]
    record = {"task_id": "HumanEval/0", "passed": True, "prompt_tokens": 400,
              "completion_tokens": 250, "extra": {"attempts": attempts}}
    other = {"task_id": "HumanEval/1", "passed": False, "prompt_tokens": 10,
             "completion_tokens": 20}
    problems = {"HumanEval/0": he0, "HumanEval/1": humaneval["HumanEval/1"]}
    records = {"HumanEval/0": record, "HumanEval/1": other}
    cache: dict = {}
    assert rules.evaluate(records, {}, problems, cache, rules.never) == (1, 680, ["HumanEval/0"])
    # Stopped after two candidates, the draft is what the run keeps: wrong on hidden tests.
    assert rules.evaluate(records, {}, problems, cache, rules.max_candidates(2)) == (0, 530, [])
    assert cache["HumanEval/0"] == [False, False, True]


def _write_run(path: Path, records: list[ProblemRecord], **meta) -> None:
    path.mkdir(parents=True)
    (path / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    (path / "run.json").write_text(json.dumps({"dataset": "humaneval", "strategy": "pipeline",
                                               "model": "scripted", "options": {},
                                               **meta}))


def test_a_composed_run_takes_the_subset_s_records_and_says_so(composer, tmp_path):
    def rec(task_id: str, passed: bool, tokens: int) -> ProblemRecord:
        return ProblemRecord(task_id=task_id, passed=passed, outcome="passed" if passed
                             else "wrong_answer", reason="", prompt_tokens=tokens)

    _write_run(tmp_path / "full", [rec("A", True, 10), rec("B", False, 50), rec("C", True, 5)],
               command="full")
    _write_run(tmp_path / "subset", [rec("B", True, 40)], command="subset")
    summary = composer.compose(tmp_path / "full", tmp_path / "subset", tmp_path / "out")
    assert summary["passed"] == 3 and summary["problems_done"] == 3
    assert summary["llm"]["prompt_tokens"] == 55
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == ["A", "B", "C"]
    meta = json.loads((tmp_path / "out" / "run.json").read_text())
    assert meta["composed_from"]["changed_problems"] == 1 and meta["command"] == "subset"
    # A subset with a problem the full run lacks is refused, nothing written.
    _write_run(tmp_path / "odd", [rec("Z", True, 1)])
    with pytest.raises(SystemExit, match="lacks: Z"):
        composer.compose(tmp_path / "full", tmp_path / "odd", tmp_path / "out2")
    assert not (tmp_path / "out2").exists()


@pytest.fixture(scope="module")
def stuck_samples():
    sys.path.insert(0, str(BENCHMARKS))  # it imports its sibling scripts by name
    yield _load("stuck_samples")
    sys.path.remove(str(BENCHMARKS))
    for name in ("stuck_samples", "sample_budget", "stop_rules"):
        sys.modules.pop(name, None)


def test_hot_samples_are_the_ones_drawn_after_a_sample_repeated_a_failure(stuck_samples):
    draft = dict(_attempt(0, accepted=True, feedback="f(1) returned 2, expected 3"),
                 strategy="draft")
    other = _attempt(0, accepted=False, feedback="f(1) returned 4, expected 3")
    repeat = _attempt(0, accepted=False, feedback="f(1) returned 2, expected 3")
    won = _attempt(1, accepted=True)
    # Samples failing somewhere new never make a task stuck.
    assert stuck_samples.hot_samples([draft, other, other.copy() | {"feedback": "x"}]) == []
    # The repeat itself was drawn cold; only what comes after it is hot.
    assert stuck_samples.hot_samples([draft, other, repeat, won]) == [3]
    assert stuck_samples.kept_before([draft, other, repeat, won], 3) == 0
    # An edge round after the task got stuck is not a sample: not hot.
    edge = dict(_attempt(1, accepted=True), strategy="edge")
    assert stuck_samples.hot_samples([draft, repeat, won, edge]) == [2]


def test_later_samples_in_a_round_are_the_last_round_extras(stuck_samples):
    draft = dict(_attempt(0, accepted=True, feedback="f(1) returned 2, expected 3"),
                 strategy="draft")
    rounds = [dict(_attempt(0, accepted=False, feedback="f(1) returned 2, expected 3"),
                   round=n) for n in (1, 2, 3, 3, 3)]
    assert stuck_samples.later_in_round([draft] + rounds) == [4, 5]
    # One sample a round: none.
    assert stuck_samples.later_in_round([draft] + rounds[:3]) == []
