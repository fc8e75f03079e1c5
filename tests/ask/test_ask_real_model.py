"""The ask job on the real embedded 0.5B model: a question about the fixture package goes
through all six nodes, and the answer names the function that computes the value."""

from __future__ import annotations

import os

import pytest

from codeloop.ask.service import ask


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_small_model_answers_a_question_from_the_code(pyapp):
    import llama_cpp  # noqa: F401 - fail (not skip) when the runtime is missing

    from codeloop.llm import weights
    from codeloop.llm.local import LocalLLM

    path = weights.ensure_model(weights.EMBEDDED_MODELS["qwen2.5-coder-0.5b"])
    llm = LocalLLM(path, name="local:qwen2.5-coder-0.5b", n_ctx=4096,
                   n_threads=os.cpu_count() or 1)
    result = ask("Which function computes the total value of the inventory?", pyapp, llm)

    assert result.task_type == "answer_question" and result.output_source == "model"
    assert result.is_complete and result.evaluation_scores["overall"] > 0
    assert "inventory_value" in result.final_output, result.final_output
    assert {u["tool"] for u in result.tool_usage} >= {"retrieve_chunks"}
    # the grounding is measured, whatever it is; invented citations are listed, not hidden
    g = result.grounding
    assert g["cited"] == g["existing"] + len(g["invented"])
