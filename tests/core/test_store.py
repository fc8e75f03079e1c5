import sqlite3

from codeloop.events import EventBus, LLMCall, StageEnd, StageStart, Token
from codeloop.store import RunStore


def test_a_run_and_its_events_persist_across_reopen(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        run_id = store.start_run("solve", {"task_id": "count_vowels"})
        bus = EventBus(run_id=run_id)
        bus.subscribe(store)
        bus.emit(StageStart(stage="analysis"))
        bus.emit(LLMCall(model="scripted", stage="analysis", prompt_tokens=3, completion_tokens=4))
        bus.emit(Token(text="streamed piece"))  # shown live, never stored
        bus.emit(StageEnd(stage="analysis", seconds=0.2))
        store.finish_run(run_id, "passed", {"verdict": "Code is correct"})

    with RunStore(path) as store:
        run = store.get_run(run_id)
        assert run is not None
        assert run.job == "solve" and run.status == "succeeded"
        assert run.input == {"task_id": "count_vowels"}
        assert run.result == {"verdict": "Code is correct"}
        events = store.events(run_id)
        assert [seq for seq, _ in events] == [1, 2, 3]
        assert [e.type for _, e in events] == ["stage_start", "llm_call", "stage_end"]
        assert store.events(run_id, after_seq=2)[0][1].type == "stage_end"
        assert [r.id for r in store.list_runs(job="solve")] == [run_id]


def test_event_sequence_continues_after_reopen(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        run_id = store.start_run("agent")
        store.record_event(StageStart(stage="a", run_id=run_id))
    with RunStore(path) as store:
        store.record_event(StageStart(stage="b", run_id=run_id))
        assert [seq for seq, _ in store.events(run_id)] == [1, 2]


def test_langgraph_checkpointer_shares_the_file(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        saver = store.checkpointer()
        assert saver is store.checkpointer()
    tables = {r[0] for r in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"runs", "events", "checkpoints"} <= tables
