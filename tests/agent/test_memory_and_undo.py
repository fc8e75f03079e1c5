"""Threads: a follow-up continues the previous turn, a thread survives a restart, /undo."""

from __future__ import annotations

from agent_replies import act, action_prompts, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.store import RunStore

PLAN = "Plan: create greet.py with greet(name) returning 'Hello, <name>!'. Shall I?"
GREET = "def greet(name):\n    return f'Hello, {name}!'\n"


def _session(llm, repo, checkpointer, snapshots, thread="feature-x"):
    return AgentSession(llm, agent_spec("single", repo), checkpointer=checkpointer,
                        snapshots=snapshots, thread=thread, context_first=False)


def test_follow_up_sees_the_previous_plan(repo, store, snapshots):
    llm = scripted(
        finish(PLAN),
        act("write_file", path="greet.py", content=GREET, start_line=None, end_line=None),
        finish("Created greet.py."),
    )
    session = _session(llm, repo, store.checkpointer(), snapshots)
    assert session.ask("I need a greeting helper").turn == 1
    second = session.ask("yes, do it")
    assert second.turn == 2 and second.status == "finished"
    prompt = [m.content for m in action_prompts(llm)[1]]
    assert "I need a greeting helper" in prompt[1] and PLAN in prompt[2]
    assert prompt[-1] == "yes, do it\n\nFiles in the workspace (1): README.md."
    assert [m["kind"] for m in session.history()] == ["request", "answer", "request", "answer"]


def test_thread_resumes_after_restart(repo, tmp_path, snapshots):
    path = tmp_path / "store.sqlite"
    with RunStore(path) as first_store:
        _session(scripted(finish(PLAN)), repo, first_store.checkpointer(),
                 snapshots).ask("I need a greeting helper")
    with RunStore(path) as second_store:  # a new process would open the store again
        llm = scripted(finish("Continuing the plan."))
        session = _session(llm, repo, second_store.checkpointer(), snapshots)
        result = session.ask("yes, do it")
        assert result.turn == 2
        assert any(PLAN in m.content for m in action_prompts(llm)[0])
        assert session.threads() == ["feature-x"]
        session.new_thread("other")
        assert session.history() == []
        fresh = _session(scripted(finish("hi")), repo, second_store.checkpointer(),
                         snapshots, thread="other")
        assert fresh.ask("hello").turn == 1


def test_threads_are_separate(repo, store, snapshots):
    llm = scripted(finish("A"), finish("B"))
    a = _session(llm, repo, store.checkpointer(), snapshots, thread="a")
    a.ask("first in a")
    b = _session(llm, repo, store.checkpointer(), snapshots, thread="b")
    b.ask("first in b")
    assert all("first in a" not in m.content for m in action_prompts(llm)[1])
    assert b.threads() == ["a", "b"]


def test_undo_reverts_the_last_turns_changes(repo, store, snapshots):
    (repo.root / "keep.py").write_text("x = 1\n")
    llm = scripted(
        act("write_file", path="greet.py", content=GREET, start_line=None, end_line=None),
        act("read_file", path="keep.py", start_line=None, end_line=None),
        act("edit_file", path="keep.py", old_text="x = 1", new_text="x = 2"),
        finish("done"),
        finish("nothing to do"),
    )
    session = _session(llm, repo, store.checkpointer(), snapshots)
    turn = session.ask("make changes")
    assert {c.path for c in turn.changes} == {"greet.py", "keep.py"}
    session.ask("just chat")  # a turn without changes: undo skips it
    message = session.undo()
    assert "Reverted turn 1" in message
    assert not (repo.root / "greet.py").exists()
    assert (repo.root / "keep.py").read_text() == "x = 1\n"
    assert "Nothing to undo" in session.undo()
    assert any("undid turn 1" in m["content"] for m in session.history())


def test_undo_refuses_when_files_changed_since(repo, store, snapshots):
    llm = scripted(
        act("write_file", path="greet.py", content=GREET, start_line=None, end_line=None),
        finish("done"),
    )
    session = _session(llm, repo, store.checkpointer(), snapshots)
    session.ask("create greet.py")
    (repo.root / "greet.py").write_text("# edited by the user\n")
    assert "changed after that turn: greet.py" in session.undo()
    assert (repo.root / "greet.py").read_text() == "# edited by the user\n"
