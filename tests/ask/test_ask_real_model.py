"""The ask job on the real embedded 0.5B model: a question about the fixture package goes
through all six nodes, retrieval finds the file it is about, the answer names the function
that computes the value, and its grounding rate is a rate."""

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
    # retrieval found the file the question is about, and gave the model its lines
    assert "pyapp/report.py" in {c["path"] for c in result.retrieved}, result.retrieved
    # the grounding is measured, whatever it is: a rate in [0, 1], or none without citations
    g = result.grounding
    if g["cited"]:
        assert 0.0 <= g["rate"] <= 1.0 and g["grounded"] <= g["cited"], g
    else:
        assert g["rate"] is None, g
