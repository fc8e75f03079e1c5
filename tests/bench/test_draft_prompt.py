"""The pipeline's draft is the one-shot baseline's call: the same message, byte for byte."""

from __future__ import annotations


def test_the_pipeline_s_plain_generation_prompt_is_the_one_shot_prompt(humaneval):
    from codeloop.bench.strategies.oneshot import oneshot_prompt
    from codeloop.bench.task_builder import task_for
    from codeloop.pipeline.prompts_loader import load_prompt

    spec = load_prompt("generation")
    for problem in humaneval.values():
        source = task_for(problem.public()).prompt_source()
        assert spec.messages(source=source, plan="")[0].content == oneshot_prompt(
            problem.public())
