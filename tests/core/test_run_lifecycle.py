"""One run lifecycle in the store, on a real SQLite file: `with store.run(job, inputs) as run:`
records its events, its end, a failure inside the block, a block left unfinished, and two runs
in two threads at once; the agent's threads are listed by the store, per workspace."""

from __future__ import annotations

import threading

import pytest

from codeloop.events import EventBus, EventRecorder, LLMCall, Progress, StageEnd, StageStart
from codeloop.store import RunStore, UnfinishedRun


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as opened:
        yield opened


def test_a_finished_run_keeps_its_inputs_events_and_result(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        with store.run("review", {"diff": "a.py"}) as run:
            assert run.bus.run_id == run.id
            assert store.get_run(run.id).status == "running"
            run.bus.emit(StageStart(stage="reviewer"))
            run.bus.emit(StageEnd(stage="reviewer", seconds=0.1))
            run.finish("applied", {"verdict": "ok"})
        run_id = run.id
    with RunStore(path) as store:  # what a later process reads
        record = store.get_run(run_id)
        assert (record.job, record.status, record.outcome) == ("review", "succeeded",
                                                               "applied")
        assert record.input == {"diff": "a.py"} and record.result == {"verdict": "ok"}
        assert record.ended is not None and record.ended >= record.started
        assert [e.type for _, e in store.events(run_id)] == ["stage_start", "stage_end"]


def test_an_exception_in_the_block_is_recorded_as_error_and_raised(store):
    with pytest.raises(ValueError, match="model went away"), store.run("build", {}) as run:
        run.bus.emit(Progress(done=1, total=3))
        raise ValueError("model went away")
    record = store.get_run(run.id)
    assert (record.status, record.outcome) == ("failed", "error: model went away")
    assert record.result == {"error": "model went away"}
    assert [e.type for _, e in store.events(run.id)] == ["progress"]


def test_ctrl_c_in_the_block_is_recorded_as_interrupted(store):
    with pytest.raises(KeyboardInterrupt), store.run("ask", {}) as run:
        raise KeyboardInterrupt
    assert store.get_run(run.id).status == "interrupted"


def test_a_block_left_unfinished_is_an_error_not_a_silent_done(store):
    with pytest.raises(UnfinishedRun, match="run.finish"), store.run("review", {}) as run:
        run.bus.emit(StageStart(stage="reviewer"))
    record = store.get_run(run.id)
    assert record.status == "failed"
    assert "without a result" in record.result["error"]


def test_a_run_finishes_once(store):
    with store.run("ask", {}) as run:
        run.finish("done", {"answer": 1})
        with pytest.raises(RuntimeError, match="already finished"):
            run.finish("failed")
    assert store.get_run(run.id).result == {"answer": 1}


def test_an_error_after_finish_keeps_the_recorded_outcome(store):
    with pytest.raises(OSError), store.run("solve", {}) as run:
        run.finish("passed", {"ok": True})
        raise OSError("the terminal went away while printing")
    assert store.get_run(run.id).status == "succeeded"


def test_a_secret_in_inputs_or_error_is_not_stored(store):
    token = "ghp_" + "Zq8Xr2Lm4Np6Tv1Wb3Yc5Ad7Fe9Hg0Jk2Ls4M"  # made up, GitHub's format
    with pytest.raises(RuntimeError), store.run("ask", {"question": f"use {token}"}):
        raise RuntimeError(f"rejected key {token}")
    raw = store.conn.execute("SELECT group_concat(input || result, '') FROM runs").fetchone()[0]
    assert token not in raw and "REDACTED" in raw


def test_a_lent_bus_feeds_the_store_for_the_run_only(store):
    bus = EventBus()  # an agent REPL's bus: the tools were built with it
    seen = EventRecorder()
    bus.subscribe(seen)
    with store.run("agent", {}, bus=bus) as first:
        bus.emit(StageStart(stage="turn 1"))
        first.finish("done")
    bus.emit(StageStart(stage="between runs"))  # shown, but no run owns it
    with store.run("agent", {}, bus=bus) as second:
        bus.emit(StageStart(stage="turn 2"))
        second.finish("done")
    assert bus.run_id is None
    assert [e.stage for _, e in store.events(first.id)] == ["turn 1"]
    assert [e.stage for _, e in store.events(second.id)] == ["turn 2"]
    assert [e.stage for e in seen.events] == ["turn 1", "between runs", "turn 2"]


def test_two_runs_in_two_threads_keep_their_own_events(store):
    count = 40
    started = threading.Barrier(2)
    ids: dict[str, str] = {}
    errors: list[BaseException] = []

    def job(name: str) -> None:
        try:
            with store.run(name, {"worker": name}) as run:
                ids[name] = run.id
                started.wait(timeout=5)  # both runs open at once
                for i in range(count):
                    run.bus.emit(LLMCall(model=name, stage=str(i), prompt_tokens=i))
                run.finish("done", {"calls": count})
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    workers = [threading.Thread(target=job, args=(n,)) for n in ("review", "build")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=20)
    assert not errors
    for name in ("review", "build"):
        events = store.events(ids[name])
        assert [seq for seq, _ in events] == list(range(1, count + 1))
        assert {e.model for _, e in events} == {name}
        assert [e.stage for _, e in events] == [str(i) for i in range(count)]
        record = store.get_run(ids[name])
        assert (record.job, record.status, record.result) == (name, "succeeded",
                                                               {"calls": count})


def test_the_store_lists_threads_by_prefix_literally(store):
    from langgraph.checkpoint.base import empty_checkpoint

    saver = store.checkpointer()
    for thread_id in ("agent:aaa:default", "agent:aaa:feature", "agent:bbb:default",
                      "agent:a_a:x"):
        saver.put({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}},
                  empty_checkpoint(), {}, {})
    assert store.threads("agent:aaa:") == ["default", "feature"]
    assert store.threads("agent:bbb:") == ["default"]
    assert store.threads("agent:a_a:") == ["x"]  # `_` is no wildcard
    assert store.threads("agent:zzz:") == []



def test_the_agent_records_each_request_as_a_run(tmp_path, store):
    import io

    from rich.console import Console

    from codeloop.agent.app import AgentApp
    from codeloop.agent.snapshots import init_repo
    from codeloop.jobs.react.state import AgentLimits
    from codeloop.llm.scripted import ScriptedLLM
    from codeloop.tools import Workspace

    root = tmp_path / "proj"
    root.mkdir()
    (root / "README.md").write_text("# proj\n")
    init_repo(root)
    llm = ScriptedLLM([{"raise": "BackendUnreachable", "message": "backend away"}])
    app = AgentApp(llm, Workspace.at(root), store, limits=AgentLimits(), multi_agent=False,
                   thread="t", console=Console(file=io.StringIO()))
    assert app.run_once("explain README.md") == 1
    [run] = store.list_runs("agent")
    assert run.status == "failed" and "backend away" in run.result["answer"]
    assert run.input["request"] == "explain README.md"
    assert app.bus.run_id is None  # the run is over: later events belong to no run
    assert any(e.type == "stage_start" for _, e in store.events(run.id))


# ------------------------------------------------------------------ pause and resume
def test_a_paused_run_waits_and_is_resumed_from_another_store(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        with store.run("review", {"request": "x"}) as run:
            run.bus.emit(StageStart(stage="reviewer"))
            run.pause("awaiting_approval", {"pending": 1})
        record = store.get_run(run.id)
        assert (record.status, record.ended) == ("awaiting_approval", None)
        assert [r.id for r in store.list_runs(status="awaiting_approval")] == [run.id]
    with RunStore(path) as later:  # another process, later
        with later.resume(run.id) as resumed:
            assert resumed.id == run.id and later.get_run(run.id).status == "running"
            resumed.bus.emit(StageEnd(stage="persistence"))
            resumed.finish("applied", {"written": ["a.py"]})
        assert [(seq, e.type) for seq, e in later.events(run.id)] == [
            (1, "stage_start"), (2, "stage_end")]
        assert later.get_run(run.id).status == "succeeded"


def test_a_finished_or_unknown_run_cannot_be_resumed(store):
    from codeloop.store import RunNotResumable

    with store.run("review", {}) as run:
        run.finish("applied")
    with pytest.raises(RunNotResumable, match="succeeded, not waiting"), store.resume(run.id):
        pass
    with pytest.raises(RunNotResumable, match="no run 'nope'"), store.resume("nope"):
        pass
    assert store.get_run(run.id).status == "succeeded"


def test_only_one_of_two_claims_on_a_paused_run_wins(tmp_path):
    from codeloop.store import RunNotResumable

    path = tmp_path / "runs.sqlite"
    with RunStore(path) as first, RunStore(path) as second:
        with first.run("review", {}) as run:
            run.pause()
        first.claim_run(run.id)
        with pytest.raises(RunNotResumable, match="running, not waiting"):
            second.claim_run(run.id)


def test_a_run_whose_process_died_is_marked_interrupted_and_can_be_resumed(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "runs.sqlite"
    script = ("import os, sys; from codeloop.store import RunStore\n"
              "s = RunStore(sys.argv[1]); rid = s.start_run('build', {}); print(rid, flush=True)\n"
              "os._exit(0)\n")  # dies with the run still 'running'
    rid = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, check=True).stdout.strip()
    with RunStore(path) as store:
        live = store.start_run("solve", {})  # this process's own run is alive: untouched
        assert store.mark_interrupted() == [rid]
        assert store.get_run(rid).status == "interrupted"
        assert store.get_run(live).status == "running"
        with store.resume(rid) as run:
            run.finish("failed")
        assert store.get_run(rid).status == "failed"


def test_runs_are_listed_newest_first_filtered_and_paged(store):
    ids = []
    for job in ("solve", "review", "solve"):
        with store.run(job, {}) as run:
            run.finish("passed" if job == "solve" else "applied")
        ids.append(run.id)
    assert [r.id for r in store.list_runs(job="solve")] == [ids[2], ids[0]]
    assert [r.id for r in store.list_runs(limit=1, offset=1)] == [ids[1]]
    assert store.count_runs(job="solve", status="succeeded") == 2
    assert store.count_runs(status="failed") == 0


def test_a_run_cannot_finish_as_paused(store):
    with store.run("review", {}) as run:
        with pytest.raises(ValueError, match="pause it instead"):
            run.finish("awaiting_approval")
        run.finish("applied")
