"""One usage record for every job: what model calls cost (calls, prompt and completion
tokens, seconds). A stage's tally, a strategy's total, a run's per-stage table and a bench
record's figures are all this one shape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from codeloop.llm.base import Reply, TokenTotal


@dataclass
class UsageRecord(TokenTotal):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def add(self, reply: Reply) -> None:
        """Count one model call."""
        self.calls += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        self.seconds += reply.seconds

    def absorb(self, other: UsageRecord) -> None:
        """Add another record's figures to this one (seconds kept to the millisecond)."""
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds = round(self.seconds + other.seconds, 3)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def stage_entry(stage: str, usage: UsageRecord, seconds: float) -> dict[str, Any]:
    """The record as plain data in a job's state (checkpointed as JSON), with its stage and
    the stage's wall-clock seconds in place of the model's."""
    return {"stage": stage, **usage.as_dict(), "seconds": round(seconds, 3)}


def per_stage(entries: Iterable[dict[str, Any]]) -> tuple[dict[str, UsageRecord], UsageRecord]:
    """Entries from `stage_entry` summed per stage (in order of first appearance), and the
    total over all of them."""
    stages: dict[str, UsageRecord] = {}
    for entry in entries:
        figures = {k: v for k, v in entry.items() if k != "stage"}
        stages.setdefault(entry["stage"], UsageRecord()).absorb(UsageRecord(**figures))
    total = UsageRecord()
    for figures in stages.values():
        total.absorb(figures)
    return stages, total
