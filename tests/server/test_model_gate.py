"""The model gate on the scripted model: a serial gate gives one call at a time (the next
waits, shown as queued), an open gate lets calls overlap, and a cancelled run's next call
(or its wait in the queue) fails with Cancelled, an LLMError every job already handles."""

from __future__ import annotations

import threading
import time

import pytest

from codeloop.llm.base import LLMError
from codeloop.llm.scripted import ScriptedLLM
from codeloop.server.model_gate import Cancelled, GatedLLM, ModelGate, RunSignals


def _gated(llm, gate, signals) -> GatedLLM:
    return GatedLLM(lambda: llm, llm.name, gate, signals)


def test_the_model_loads_at_the_first_call_not_before():
    loads: list[int] = []

    def load():
        loads.append(1)
        return ScriptedLLM(["hello"])

    llm = GatedLLM(load, "scripted:x", ModelGate(serial=True), RunSignals())
    assert llm.name == "scripted:x" and loads == []
    assert llm.complete([{"role": "user", "content": "hi"}]).text == "hello"
    assert llm.remaining == 0 and loads == [1]


def test_a_task_start_forgets_the_prompt_cache_only_of_a_loaded_model():
    inner = ScriptedLLM(["hello"])
    loads: list[int] = []
    llm = GatedLLM(lambda: loads.append(1) or inner, "scripted:x", ModelGate(serial=True),
                   RunSignals())
    llm.forget_prompt_cache()
    assert loads == [] and inner.task_starts == []  # nothing loaded, nothing cached
    llm.complete([{"role": "user", "content": "hi"}])
    llm.forget_prompt_cache()
    assert loads == [1] and inner.task_starts == [1]


def test_a_serial_gate_queues_the_second_run_until_the_first_call_ends():
    gate = ModelGate(serial=True)
    first, second = RunSignals(), RunSignals()
    llm = _gated(ScriptedLLM(["one", "two"]), gate, second)
    turn = gate.hold(first)
    turn.__enter__()  # the first run is inside a model call
    answer: list[str] = []
    worker = threading.Thread(target=lambda: answer.append(llm.complete([
        {"role": "user", "content": "hi"}]).text))
    worker.start()
    deadline = time.monotonic() + 30
    while not second.queued:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert not answer and not first.queued
    turn.__exit__(None, None, None)
    worker.join(5)
    assert answer == ["one"] and not second.queued


def test_an_open_gate_lets_calls_overlap():
    gate = ModelGate(serial=False)
    with gate.hold(RunSignals()):
        reply = _gated(ScriptedLLM(["x"]), gate, RunSignals()).complete(
            [{"role": "user", "content": "hi"}])
    assert reply.text == "x"


def test_a_cancelled_run_gets_cancelled_at_its_next_call_and_while_queued():
    gate = ModelGate(serial=True)
    signals = RunSignals()
    llm = _gated(ScriptedLLM(["a", "b", "c"]), gate, signals)
    assert llm.complete([{"role": "user", "content": "1"}]).text == "a"
    signals.cancelled.set()
    with pytest.raises(Cancelled) as caught:
        llm.complete([{"role": "user", "content": "2"}])
    assert isinstance(caught.value, LLMError) and signals.fired
    with pytest.raises(Cancelled):
        list(llm.stream([{"role": "user", "content": "3"}]))
    with pytest.raises(Cancelled):
        llm.complete_json([{"role": "user", "content": "4"}], {"type": "object"})
    assert llm.inner.remaining == 2  # the refused calls never reached the model

    waiting = RunSignals()
    queued = _gated(ScriptedLLM(["z"]), gate, waiting)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            queued.complete([{"role": "user", "content": "q"}])
        except Cancelled as exc:
            errors.append(exc)

    with gate.hold(RunSignals()):
        worker = threading.Thread(target=call)
        worker.start()
        while not waiting.queued:
            time.sleep(0.01)
        waiting.cancelled.set()  # cancelled while it waits for the model
        worker.join(5)
    assert len(errors) == 1 and not waiting.queued
    assert gate.hold(RunSignals()).gate._lock.acquire(blocking=False)  # the gate is free
