"""The baseline: one greedy sample with the EvalPlus instruct prompt."""

from __future__ import annotations

from functools import cache
from importlib import resources

import yaml

from codeloop.bench.datasets import PublicProblem
from codeloop.bench.program import build_program
from codeloop.bench.strategies.base import Attempt, StageFigures
from codeloop.bench.task_builder import evalplus_text
from codeloop.llm.base import LLM, CallLog, user


@cache
def _settings() -> dict:
    text = resources.files("codeloop.bench").joinpath("prompts.yaml").read_text("utf-8")
    return yaml.safe_load(text)["oneshot"]


def oneshot_prompt(problem: PublicProblem) -> str:
    return f"{_settings()['instruction']}\n```python\n{evalplus_text(problem)}\n```\n"


class OneShot:
    name = "oneshot"
    description = "one greedy sample with the EvalPlus instruct prompt (the baseline)"

    def __init__(self, max_tokens: int | None = None) -> None:
        self.max_tokens = int(max_tokens or _settings()["max_tokens"])

    def solve(self, problem: PublicProblem, llm: LLM) -> Attempt:
        reply = llm.complete([user(oneshot_prompt(problem))], max_tokens=self.max_tokens,
                             temperature=float(_settings()["temperature"]))
        program = build_program(problem, reply.text)
        log = CallLog()
        log.add(reply)
        attempt = Attempt(program=program.code, reply=reply.text, note=program.note)
        attempt.add_calls(log)
        attempt.stages["generation"] = StageFigures(
            1, reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.seconds)
        attempt.extra["finish_reason"] = reply.finish_reason
        return attempt


STRATEGY = OneShot
