"""The build benchmark's transcript records every call an agent makes, streamed ones too (the
tests-first replies and the edit engine's rounds are streamed, so that ask_model can stop a
looping reply): the run at 3f37f7b kept an empty transcript, its calls all streamed."""

from __future__ import annotations

import importlib.util
import threading

from bench_modules import BENCH

from codeloop.jobs.runaway import runaway
from codeloop.jobs.stage import ask_model
from codeloop.llm.scripted import ScriptedLLM


def _build_real(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    spec = importlib.util.spec_from_file_location("build_real", BENCH / "build_real.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_streamed_calls_are_recorded_as_far_as_they_were_read(monkeypatch):
    build_real = _build_real(monkeypatch)
    loop = "def test_f():\n" + "".join(f"    assert f({n}) == {n}\n" for n in range(30))
    transcript: list[dict] = []
    llm = build_real._TimeUp(ScriptedLLM(["whole reply", loop, "plain"]), threading.Event(),
                             "task:A", transcript)
    ask_model(llm, [{"role": "user", "content": "one"}], stage="t", bus=None,
              max_tokens=64, temperature=0.0, until=runaway)
    stopped = ask_model(llm, [{"role": "user", "content": "two"}], stage="t", bus=None,
                        max_tokens=512, temperature=0.0, until=runaway)
    llm.complete([{"role": "user", "content": "three"}])
    assert [t["reply"] for t in transcript] == ["whole reply", stopped.text, "plain"]
    assert transcript[1]["reply"].count("assert") == 8
    assert [t["messages"][-1]["content"] for t in transcript] == ["one", "two", "three"]
    assert {t["agent"] for t in transcript} == {"task:A"}
