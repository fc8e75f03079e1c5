"""The single agent is told the workspace's files with each request (agent/overview.py)."""

from __future__ import annotations

from agent_replies import act, action_prompts, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.overview import workspace_overview
from codeloop.agent.session import AgentSession
from codeloop.tools import Workspace

LISTING = "Files in the workspace"


def _session(llm, repo, store, snapshots):
    return AgentSession(llm, agent_spec("single", repo), checkpointer=store.checkpointer(),
                        snapshots=snapshots, thread="overview", context_first=False)


def test_each_request_comes_with_the_files_as_they_are_then(repo, store, snapshots):
    (repo.root / "src").mkdir()
    (repo.root / "src" / "shop.py").write_text("def calc_total(p):\n    return sum(p)\n")
    llm = scripted(
        act("write_file", path="notes.txt", content="todo", start_line=None, end_line=None),
        finish("Wrote notes.txt."),
        finish("Two files and the notes."),
    )
    session = _session(llm, repo, store, snapshots)
    assert session.ask("Write notes.txt saying todo").status == "finished"
    session.ask("What is here?")

    first_turn = [m.content for m in action_prompts(llm)[0]]
    assert first_turn[1] == ("Write notes.txt saying todo\n\n"
                             "Files in the workspace (2): README.md, src/shop.py.")
    second_turn = "\n".join(m.content for m in action_prompts(llm)[-1])
    # Only this turn's listing is sent: it has the file the first turn made, the old one
    # is not resent, and the user's history holds only what was said.
    assert "Files in the workspace (3): README.md, notes.txt, src/shop.py." in second_turn
    assert second_turn.count(LISTING) == 1
    assert all(LISTING not in m["content"] for m in session.history())


def test_listed_files_are_not_taken_as_named_by_the_request(repo, store, snapshots):
    # The held finish (jobs/react/progress.py) reads only the request: README.md being listed
    # must not make "finish" look premature.
    llm = scripted(finish("Nothing to do."))
    result = _session(llm, repo, store, snapshots).ask("Say hello")
    assert result.status == "finished" and result.answer == "Nothing to do."


def test_empty_and_long_listings(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert workspace_overview(Workspace.at(empty)) == "The workspace has no files yet."
    many = tmp_path / "many"
    (many / ".git").mkdir(parents=True)
    (many / ".git" / "config").write_text("")
    for i in range(45):
        (many / f"m{i:02d}.py").write_text("")
    text = workspace_overview(Workspace.at(many), limit=40)
    assert text.startswith("Files in the workspace (45): m00.py, m01.py")
    assert "m39.py, and 5 more (list_files shows them)." in text
    assert "m40.py" not in text and ".git" not in text
