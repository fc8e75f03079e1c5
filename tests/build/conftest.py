"""Fixtures of the build tests: a run store, and `build` to run the real build job (real git,
sandbox, pytest) on scripted agents, returning its final state, events and project."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from codeloop.build.models import scripted_agents
from codeloop.build.runner import BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.events import EventRecorder
from codeloop.store import RunStore


@dataclass
class Built:
    final: dict[str, Any]
    events: list[Any]
    out: Path
    run_id: str
    sleeps: list[float]
    store: RunStore
    llm_for: Any  # agent key -> its ScriptedLLM (its .calls are the prompts it got)

    def progress(self) -> list[str]:
        return [e.message for e in self.events if e.type == "progress"]

    def task_events(self) -> list[tuple[str, str, float]]:
        """("start"|"end", task id, ts) of every dispatched task, in order."""
        out = []
        for e in self.events:
            if e.type == "stage_start" and e.stage == "build.task":
                out.append(("start", e.detail, e.ts))
            elif e.type == "stage_end" and e.stage == "build.task":
                out.append(("end", e.output.split(":", 1)[0], e.ts))
        return out


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as s:
        yield s


@pytest.fixture
def build(tmp_path, store):
    def run(request: dict[str, Any], agents: dict[str, list], *, stack: str | None = None,
            stack_file: Path | None = None, out: Path | None = None, **options: Any) -> Built:
        out = out or tmp_path / "project"
        opts = {"max_parallel": 3, "retries": 0, "backoff_seconds": 1.0, **options}
        inputs = prepare(request, out_dir=out, stack=stack, stack_file=stack_file,
                         options=BuildOptions(**opts))
        sleeps: list[float] = []
        llm_for = scripted_agents(agents)
        runtime = BuildRuntime(llm_for=llm_for, sleep=sleeps.append)
        recorder = EventRecorder()
        with store.run("build", inputs.record()) as handle:
            handle.bus.subscribe(recorder)
            final = execute(inputs, handle, store, runtime)
        return Built(final, recorder.events, inputs.out_dir, handle.id, sleeps, store, llm_for)

    return run
