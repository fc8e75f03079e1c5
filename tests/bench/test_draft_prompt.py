"""The pipeline's draft is the one-shot baseline's call: the same message, byte for byte."""

from __future__ import annotations

import pytest


def _assert_draft_is_one_shot(problems):
    from codeloop.bench.strategies.oneshot import oneshot_prompt
    from codeloop.bench.task_builder import task_for
    from codeloop.jobs.prompts import load_prompt

    spec = load_prompt("codeloop.solve", "generation")
    for problem in problems:
        source = task_for(problem.public()).prompt_source()
        assert spec.messages(source=source, plan="")[0].content == oneshot_prompt(
            problem.public()), problem.task_id


def test_the_pipeline_s_plain_generation_prompt_is_the_one_shot_prompt(humaneval):
    _assert_draft_is_one_shot(humaneval.values())


def test_on_mbpp_too_the_draft_is_the_one_shot_call(mbpp):
    assert len(mbpp) == 257
    _assert_draft_is_one_shot(mbpp.values())


@pytest.mark.parametrize("code, ok", [
    ("def remove_Occ(s, ch):\n    return s\n", True),  # the model's own names
    ("def remove_Occ(s):\n    return s\n", False),  # one parameter, the call passes two
])
def test_mbpp_review_checks_the_number_of_parameters_not_their_names(mbpp, code, ok):
    from codeloop.bench.task_builder import task_for
    from codeloop.solve.extract import check_signature

    task = task_for(mbpp["Mbpp/11"].public())
    assert task.signature == "def remove_Occ(a, b):" and not task.parameter_names
    check = check_signature(code, task.signature_node(), names=task.parameter_names)
    assert check.ok is ok
    assert not check_signature(code, task.signature_node()).ok  # names checked by default
