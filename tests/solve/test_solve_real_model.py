"""The solve job on the real embedded 0.5B model: one easy bundled task, end to end, with
every stage (`--plan-first`: the draft-first default would stop after a right draft); and a
task with no examples, whose code is cross-checked on calls the model proposes."""

from __future__ import annotations

import os

import pytest

from codeloop.events import EventBus, EventRecorder
from codeloop.llm import weights
from codeloop.llm.local import LocalLLM
from codeloop.solve.runner import solve_task
from codeloop.solve.tasks import Task, load_bundled_tasks, matching_test_file, select_task


def small_model() -> LocalLLM:
    import llama_cpp  # noqa: F401 - fail (not skip) when the runtime is missing

    path = weights.ensure_model(weights.EMBEDDED_MODELS["qwen2.5-coder-0.5b"])
    return LocalLLM(path, name="local:qwen2.5-coder-0.5b", n_ctx=4096,
                    n_threads=os.cpu_count() or 1)


@pytest.mark.real_model
@pytest.mark.timeout(900)  # ~30 s on an idle 2-core machine; much more when it is shared
def test_small_model_solves_count_vowels():
    llm = small_model()
    bundled = load_bundled_tasks()
    task = select_task([t for _, t in bundled], "count_vowels")
    task_file = next(p for p, t in bundled if t is task)
    recorder = EventRecorder()
    bus = EventBus("real-run")
    bus.subscribe(recorder)

    result = solve_task(task, llm, bus=bus, test_file=matching_test_file(task_file),
                        draft_first=False)

    assert result.verdict == "Code is correct", result.review
    assert result.exec_result["total"] >= 3 and result.exec_result["failed"] == 0
    assert "def count_vowels(s" in result.code
    starts = [e.stage for e in recorder.of_type("stage_start")]
    assert starts[:4] == ["analysis", "planning", "generation", "review"]
    assert "```" not in result.analysis and "```" not in result.plan
    assert result.totals.completion_tokens > 0 and result.stages["generation"].calls == 1


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_untested_code_is_cross_checked_on_the_small_model():
    task = Task(task_id="largest_gap", signature="def largest_gap(nums: list) -> int",
                docstring="Return the largest difference between two neighbours in nums "
                          "(0 for fewer than two numbers).")
    recorder = EventRecorder()
    bus = EventBus("real-crosscheck")
    bus.subscribe(recorder)

    result = solve_task(task, small_model(), bus=bus, max_refinements=2,
                        crosscheck=True)

    assert [e.stage for e in recorder.of_type("stage_start")][-1] == "crosscheck"
    note = result.review["notes"][-1]
    assert note.startswith("cross-check"), result.review
    if "skipped" not in note:  # the model proposed calls: two samples ran on them
        samples = [a for a in result.attempts if a["strategy"] == "crosscheck"]
        assert len(samples) == 2 and all(a["tokens"] > 0 for a in samples)
        assert "of 3 candidates written independently" in result.untested_reason
