"""A task's retry starts from main as it is then: its contract says which tasks are merged
by then (task_agent.py, BuildRuntime.merged_now), and an earlier task's name its tests import
through the task's own module is pointed at its home on main (import_homes.py). Inventory
I2's retry at 4e021a9 imported I1's ItemIn from app.pricing, was told that I1, merged four
minutes before, was not, and three tests replies were refused. Real build (git, sandbox, pytest); the model is scripted, and B's
first call waits for A's merge and then fails (a model error: the attempt ends, the retry
follows), so the order is the one measured."""

from __future__ import annotations

import threading

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.models import scripted_agents
from codeloop.build.runner import BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.events import EventRecorder
from codeloop.llm.base import LLMError
from codeloop.store import RunStore

REQUEST = {"tech_stack": "python-api", "tasks": [
    {"id": "A", "description": "the a function: a() returns 1", "depends_on": [],
     "keywords": ["a"]},
    {"id": "B", "description": "the b function: b() returns 2", "depends_on": [],
     "keywords": ["b"]}]}
A_SCRIPT = [reply_with_tests("from app.a import a\n\n\ndef test_a():\n    assert a() == 1\n"),
            file_reply(("app/a.py", "def a():\n    return 1\n"))]
# A's function imported through B's own module, as I2's retry imported I1's ItemIn from
# app.pricing
B_TESTS = reply_with_tests("from app.b import a, b\n\n\ndef test_b():\n"
                           "    assert b() == 2 * a()\n")
B_WRONG = file_reply(("app/b.py", "def b():\n    return 3\n"))
B_RIGHT = file_reply(("app/b.py", "def b():\n    return 2\n"))


class AfterMerge:
    """B's model: its first call waits until A is merged (at most 60 s), keeps the prompt it
    was given and fails."""

    def __init__(self, inner, runtime: BuildRuntime) -> None:
        self.inner, self.runtime, self.first_prompt = inner, runtime, None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def _first(self, messages) -> None:
        if self.first_prompt is None:
            self.first_prompt = messages[-1].content
            for _ in range(600):
                if "A" in self.runtime.merged_now:
                    break
                threading.Event().wait(0.1)
            raise LLMError("the model server went away")

    def complete(self, messages, **options):
        self._first(messages)
        return self.inner.complete(messages, **options)

    def stream(self, messages, **options):
        self._first(messages)
        return self.inner.stream(messages, **options)


def test_a_retry_is_told_what_was_merged_since_the_task_started(tmp_path):
    scripted = scripted_agents({"task:A": A_SCRIPT, "task:B": [B_TESTS, B_RIGHT],
                                "integration": no_wiring()})
    runtime = BuildRuntime(llm_for=lambda key: wrapped.get(key) or scripted(key),
                           sleep=lambda _: None)
    wrapped = {"task:B": AfterMerge(scripted("task:B"), runtime)}
    inputs = prepare(REQUEST, out_dir=tmp_path / "project",
                     options=BuildOptions(max_parallel=2, retries=1, backoff_seconds=0.0))
    recorder = EventRecorder()
    with RunStore(tmp_path / "runs.sqlite") as store, store.run("build", inputs.record()) as run:
        run.bus.subscribe(recorder)
        final = execute(inputs, run, store, runtime)
    assert runtime.merged_now == {"A", "B"}, (final["completed_tasks"], final["failed_tasks"])
    assert "app.a" not in wrapped["task:B"].first_prompt  # not on main when B started
    # the retry's tests import A's function from A's module on main (import_homes.py), not
    # refused as "what task A builds (not merged yet)"
    assert len(scripted("task:B").calls) == 2
    progress = "\n".join(e.message for e in recorder.events if e.type == "progress")
    assert "not merged yet" not in progress
    assert "a is imported from app.a, not app.b" in progress
    assert (tmp_path / "project" / "tests" / "test_b.py").read_text().startswith(
        "from app.b import b\nfrom app.a import a\n")
