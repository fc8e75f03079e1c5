"""What a strategy is and what it returns. A strategy sees a PublicProblem only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from codeloop.bench.datasets import PublicProblem
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLM


@dataclass
class Attempt:
    """A strategy's answer to one problem: the program to score and what it cost."""

    program: str  # the full program to score; "" when there was no usable code
    reply: str = ""  # the model's last raw reply, kept for reading failures
    note: str = ""  # why program is empty or how it was read
    usage: UsageRecord = field(default_factory=UsageRecord)  # every call; seconds in the model
    stages: dict[str, UsageRecord] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # An earlier answer that is scored too, for the record only ("" = none): the pipeline's
    # draft, whose call is byte for byte the one-shot baseline's on HumanEval.
    draft_program: str = ""
    draft_tokens: int = 0


class Strategy(Protocol):
    name: str
    description: str

    def solve(self, problem: PublicProblem, llm: LLM) -> Attempt: ...
