from __future__ import annotations

import json

import pytest
from ray_support import answer_rules, fenced

from codeloop.bench.meta import run_meta
from codeloop.bench.records import RESULTS_FILE, RUN_FILE, SUMMARY_JSON, SUMMARY_MD, RunDirError
from codeloop.bench.runner import run_bench
from codeloop.bench.strategies import get_strategy
from codeloop.llm.base import BackendUnreachable
from codeloop.llm.scripted import ScriptedLLM

IDS = ["HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/7"]
# Figures that depend on the clock or the invocation, not on the results.
VOLATILE = {"date", "command", "seconds", "score_seconds"}


def _rules(problems, wrong: set[str] = frozenset(), no_code: set[str] = frozenset()):
    return answer_rules(problems, wrong, no_code)


def _meta(strategy="oneshot", model="scripted"):
    return run_meta(dataset="humaneval", data_path=None, strategy=strategy, model=model,
                    argv=["codeloop", "bench", "humaneval"])


def _stable(summary: dict) -> dict:
    out = {k: v for k, v in summary.items() if k not in VOLATILE}
    out["stages"] = {name: {k: v for k, v in s.items() if k != "seconds"}
                     for name, s in summary["stages"].items()}
    return out


@pytest.fixture
def problems(humaneval):
    return [humaneval[i] for i in IDS]


def test_run_writes_records_and_a_summary(problems, tmp_path):
    llm = ScriptedLLM(_rules(problems, wrong={"HumanEval/2"}, no_code={"HumanEval/4"}))
    out = tmp_path / "run"
    outcome = run_bench(problems, get_strategy("oneshot"), llm, out, _meta())

    lines = (out / RESULTS_FILE).read_text().splitlines()
    assert [json.loads(ln)["task_id"] for ln in lines] == IDS
    summary = json.loads((out / SUMMARY_JSON).read_text())
    assert summary == outcome.summary
    assert summary["passed"] == 2 and summary["pass_at_1"] == 50.0 and summary["complete"]
    assert summary["outcomes"] == {"passed": 2, "wrong_answer": 1, "no_code": 1}
    by_id = {p["task_id"]: p for p in summary["problems"]}
    assert "returned None" in by_id["HumanEval/2"]["reason"]
    assert by_id["HumanEval/4"]["reason"].startswith("no code")
    records = [json.loads(ln) for ln in lines]
    assert summary["llm"]["calls"] == 4
    assert summary["llm"]["prompt_tokens"] == sum(r["prompt_tokens"] for r in records) > 0
    assert summary["stages"]["generation"]["calls"] == 4
    assert set(summary["seconds"]) == {"total", "mean", "median", "p90"}
    assert summary["machine"]["cores"] >= 1 and summary["machine"]["cpu_model"]
    assert summary["command"] == "codeloop bench humaneval"
    assert summary["strategy"] == "oneshot" and summary["model"] == "scripted"
    md = (out / SUMMARY_MD).read_text()
    assert "pass@1 50.00%" in md and "HumanEval/2" in md and "wrong_answer" in md


def test_resume_after_an_interrupt_gives_the_uninterrupted_summary(problems, tmp_path):
    wrong = {"HumanEval/2"}
    whole = run_bench(problems, get_strategy("oneshot"), ScriptedLLM(_rules(problems, wrong)),
                      tmp_path / "whole", _meta())

    def ctrl_c_after_two(record, done, passed, total):
        if done == 2:
            raise KeyboardInterrupt

    out = tmp_path / "split"
    with pytest.raises(KeyboardInterrupt):
        run_bench(problems, get_strategy("oneshot"), ScriptedLLM(_rules(problems, wrong)),
                  out, _meta(), on_record=ctrl_c_after_two)
    partial = json.loads((out / SUMMARY_JSON).read_text())
    assert partial["problems_done"] == 2 and not partial["complete"]
    with (out / RESULTS_FILE).open("a") as fh:  # a kill in the middle of a write
        fh.write('{"task_id": "HumanEval/4", "passed": tr')

    with pytest.raises(RunDirError, match="--resume"):
        run_bench(problems, get_strategy("oneshot"), ScriptedLLM([]), out, _meta())
    llm = ScriptedLLM(_rules(problems, wrong))
    resumed = run_bench(problems, get_strategy("oneshot"), llm, out, _meta(), resume=True)

    assert len(llm.calls) == 2  # only the two problems that were not on disk
    assert resumed.skipped_lines == 1
    assert _stable(resumed.summary) == _stable(whole.summary)
    assert resumed.summary["complete"] and resumed.summary["pass_at_1"] == 75.0


def test_resume_refuses_a_different_run(problems, tmp_path):
    out = tmp_path / "run"
    run_bench(problems[:1], get_strategy("oneshot"), ScriptedLLM(_rules(problems)), out,
              _meta())
    with pytest.raises(RunDirError, match="strategy: 'oneshot' there, 'pipeline' now"):
        run_bench(problems, get_strategy("pipeline"), ScriptedLLM([]), out,
                  _meta(strategy="pipeline"), resume=True)


def test_each_resume_records_the_runtime_it_ran_with(problems, tmp_path):
    # llama.cpp's thread count changes greedy answers, so a resumed run says what it ran on.
    out = tmp_path / "run"
    run_bench(problems[:1], get_strategy("oneshot"), ScriptedLLM(_rules(problems)), out,
              {**_meta(), "runtime": {"n_threads": 1}})
    run_bench(problems, get_strategy("oneshot"), ScriptedLLM(_rules(problems)), out,
              {**_meta(), "runtime": {"n_threads": 2}}, resume=True)
    run = json.loads((out / RUN_FILE).read_text())
    assert run["runtime"] == {"n_threads": 1}
    assert [entry["runtime"] for entry in run["resumed"]] == [{"n_threads": 2}]


def test_an_outage_stops_the_run_and_records_nothing_for_it(problems, tmp_path):
    rules = _rules(problems)
    rules[1] = {"match": f"def {problems[1].entry_point}(", "raise": "BackendUnreachable"}
    out = tmp_path / "run"
    with pytest.raises(BackendUnreachable):
        run_bench(problems, get_strategy("oneshot"), ScriptedLLM(rules), out, _meta())
    lines = (out / RESULTS_FILE).read_text().splitlines()
    assert [json.loads(ln)["task_id"] for ln in lines] == ["HumanEval/0"]
    assert json.loads((out / SUMMARY_JSON).read_text())["complete"] is False


def test_a_model_error_on_one_problem_is_that_problem_failing(problems, tmp_path):
    rules = _rules(problems)
    rules[0] = {"match": f"def {problems[0].entry_point}(", "raise": "ContextOverflow",
                "message": "prompt too long"}
    outcome = run_bench(problems, get_strategy("oneshot"), ScriptedLLM(rules),
                        tmp_path / "run", _meta())
    first = outcome.summary["problems"][0]
    assert first["outcome"] == "llm_error" and "prompt too long" in first["reason"]
    assert outcome.summary["passed"] == 3


def test_parallel_workers_give_the_same_results(problems, tmp_path):
    wrong = {"HumanEval/7"}
    one = run_bench(problems, get_strategy("oneshot"), ScriptedLLM(_rules(problems, wrong)),
                    tmp_path / "one", _meta())
    two = run_bench(problems, get_strategy("oneshot"), ScriptedLLM(_rules(problems, wrong)),
                    tmp_path / "two", _meta(), workers=2)
    assert _stable(two.summary) == _stable(one.summary)


def _wrong_draft_rules(problems):
    """Two problems; the second one's draft is wrong (the rule fires once), its planned
    generation right."""
    p2 = problems[1]
    return [{"match": "Write a short plan", "reply": "1. Do it."},
            {"match": f"def {p2.entry_point}(", "times": 1,
             "reply": fenced(f"def {p2.entry_point}(*args):\n    return None")},
            ] + _rules(problems[:2])


def test_pipeline_records_per_stage_figures(problems, tmp_path):
    rules = _wrong_draft_rules(problems)
    outcome = run_bench(problems[:2], get_strategy("pipeline"), ScriptedLLM(rules),
                        tmp_path / "run", _meta(strategy="pipeline"))
    summary = outcome.summary
    assert summary["passed"] == 2
    assert {"planning", "generation", "review"} <= set(summary["stages"])
    assert "analysis" not in summary["stages"]  # a wrong draft goes straight to planning
    assert summary["stages"]["planning"]["calls"] == 1  # only for the wrong draft
    assert summary["stages"]["generation"]["calls"] == 3
    assert "vote" not in summary["stages"]  # off by default (solve/vote.py)
    assert summary["llm"]["calls"] == sum(s["calls"] for s in summary["stages"].values()) == 4
    records = [json.loads(ln) for ln in (tmp_path / "run" / RESULTS_FILE).read_text().splitlines()]
    assert [r["calls"] for r in records] == [1, 3]
    assert all(r["extra"]["verdict"] == "Code is correct" for r in records)
    assert records[0]["extra"]["refinements"] == 0
    # Every candidate is kept with its cost, so stopping rules can be measured afterwards.
    kept = records[1]["extra"]["attempts"]
    assert [a["strategy"] for a in kept] == ["draft", "generation"]
    assert [a["accepted"] for a in kept] == [True, True]
    assert kept[0]["passed"] < kept[0]["total"] and kept[1]["passed"] == kept[1]["total"]
    assert sum(a["tokens"] for a in kept) == records[1]["prompt_tokens"] + \
        records[1]["completion_tokens"]
    assert "return None" in kept[0]["code"] and kept[0]["feedback"]


def test_pipeline_with_the_vote_records_its_sample(problems, tmp_path):
    # `codeloop bench --vote`: the refined pass meets an independent sample, which agrees.
    outcome = run_bench(problems[:2], get_strategy("pipeline", vote=True),
                        ScriptedLLM(_wrong_draft_rules(problems)), tmp_path / "run",
                        _meta(strategy="pipeline"))
    assert outcome.summary["passed"] == 2 and outcome.summary["stages"]["vote"]["calls"] == 1
    records = [json.loads(ln) for ln in (tmp_path / "run" / RESULTS_FILE).read_text().splitlines()]
    kept = records[1]["extra"]["attempts"]
    assert [(a["strategy"], a["accepted"]) for a in kept] == [
        ("draft", True), ("generation", True), ("vote", False)]


def test_planfirst_runs_analysis_and_planning_for_every_problem(problems, tmp_path):
    rules = [{"match": "Analyse this", "reply": "- as described."},
             {"match": "Write a short plan", "reply": "1. Do it."}] + _rules(problems[:2])
    outcome = run_bench(problems[:2], get_strategy("planfirst"), ScriptedLLM(rules),
                        tmp_path / "run", _meta(strategy="planfirst"))
    assert outcome.summary["passed"] == 2
    assert outcome.summary["stages"]["analysis"]["calls"] == 2
    assert outcome.summary["llm"]["calls"] == 6


def test_the_pipeline_s_draft_is_scored_apart_for_the_record(problems, tmp_path):
    rules = _wrong_draft_rules(problems)
    outcome = run_bench(problems[:2], get_strategy("pipeline"), ScriptedLLM(rules),
                        tmp_path / "run", _meta(strategy="pipeline"))
    records = [json.loads(ln) for ln in (tmp_path / "run" / RESULTS_FILE).read_text().splitlines()]
    assert [r["extra"]["draft"]["passed"] for r in records] == [True, False]
    assert [r["passed"] for r in records] == [True, True]
    assert all(r["extra"]["draft"]["tokens"] > 0 for r in records)
    draft = outcome.summary["draft"]
    assert draft["passed"] == 1 and draft["pass_at_1"] == 50.0
    assert "The drafts alone" in (tmp_path / "run" / SUMMARY_MD).read_text()
    # The one-shot strategy has no drafts and no such section.
    one = run_bench(problems[:2], get_strategy("oneshot"), ScriptedLLM(_rules(problems[:2])),
                    tmp_path / "one", _meta())
    assert "draft" not in one.summary


def test_every_problem_starts_from_a_fresh_prompt_cache(problems, tmp_path):
    # llama.cpp's greedy reply to a prompt can depend on what the previous call cached, so a
    # problem's result would depend on which problems ran before it (a --ids subset, a resume).
    llm = ScriptedLLM(_rules(problems))
    run_bench(problems, get_strategy("oneshot"), llm, tmp_path / "run", _meta())
    assert llm.task_starts == [0, 1, 2, 3]  # before each problem's one call, not once a run
