"""The solve job on the real embedded 0.5B model: one easy bundled task, end to end, with
every stage (`--plan-first`: the draft-first default would stop after a right draft)."""

from __future__ import annotations

import os

import pytest

from codeloop.events import EventBus, EventRecorder
from codeloop.llm import weights
from codeloop.llm.local import LocalLLM
from codeloop.solve.runner import solve_task
from codeloop.solve.tasks import load_bundled_tasks, matching_test_file, select_task


@pytest.mark.real_model
@pytest.mark.timeout(900)  # ~30 s on an idle 2-core machine; much more when it is shared
def test_small_model_solves_count_vowels():
    import llama_cpp  # noqa: F401 - fail (not skip) when the runtime is missing

    path = weights.ensure_model(weights.EMBEDDED_MODELS["qwen2.5-coder-0.5b"])
    llm = LocalLLM(path, name="local:qwen2.5-coder-0.5b", n_ctx=4096,
                   n_threads=os.cpu_count() or 1)
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
