"""Shared pieces for the solve tests: a task, scripted replies, and a run helper."""

from __future__ import annotations

import pytest

from codeloop.events import EventBus, EventRecorder
from codeloop.llm.scripted import ScriptedLLM
from codeloop.solve.runner import solve_task
from codeloop.solve.tasks import Task


@pytest.fixture
def add_task() -> Task:
    return Task(task_id="add", signature="def add(a: int, b: int) -> int",
                docstring="Return the sum of a and b.\n>>> add(2, 2)\n4",
                examples="add(0, 0) == 0\nadd(-1, 1) == 0")

class Run:
    def __init__(self, task: Task, replies: list, **kwargs) -> None:
        self.llm = ScriptedLLM(replies)
        self.recorder = EventRecorder()
        bus = EventBus("run-1")
        bus.subscribe(self.recorder)
        self.result = solve_task(task, self.llm, bus=bus, **kwargs)

    def stages(self) -> list[str]:
        return [e.stage for e in self.recorder.of_type("stage_start")]

    def prompts(self) -> list[str]:
        return [call[-1].content for call in self.llm.calls]

@pytest.fixture
def run():
    return Run
