"""The baseline: one greedy sample with the EvalPlus instruct prompt."""

from __future__ import annotations

from codeloop.bench.datasets import PublicProblem
from codeloop.bench.program import build_program
from codeloop.bench.strategies.base import Attempt
from codeloop.bench.task_builder import evalplus_text
from codeloop.jobs.prompts import PromptSpec, load_prompt
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLM


def _prompt() -> PromptSpec:
    return load_prompt("codeloop.bench", "oneshot")


def oneshot_prompt(problem: PublicProblem) -> str:
    return _prompt().messages(source=evalplus_text(problem))[0].content


class OneShot:
    name = "oneshot"
    description = "one greedy sample with the EvalPlus instruct prompt (the baseline)"

    def __init__(self, max_tokens: int | None = None) -> None:
        self.max_tokens = int(max_tokens or _prompt().max_tokens)

    def solve(self, problem: PublicProblem, llm: LLM) -> Attempt:
        spec = _prompt()
        reply = llm.complete(spec.messages(source=evalplus_text(problem)),
                             max_tokens=self.max_tokens, temperature=spec.temperature)
        program = build_program(problem, reply.text)
        usage = UsageRecord()
        usage.add(reply)
        attempt = Attempt(program=program.code, reply=reply.text, note=program.note,
                          usage=usage, stages={"generation": UsageRecord(**usage.as_dict())})
        attempt.extra["finish_reason"] = reply.finish_reason
        return attempt


STRATEGY = OneShot
