"""The agent's memory and the run store leak nothing: a thread belongs to its workspace (one
store file serves every project of a user), and a secret in a file the agent reads reaches
neither the model nor the stored events."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.agent.snapshots import Snapshots, init_repo
from codeloop.events import EventBus
from codeloop.store import RunStore
from codeloop.tools import Workspace

_REPLIES = importlib.util.spec_from_file_location(
    "agent_replies", Path(__file__).parents[1] / "agent" / "agent_replies.py")
replies = sys.modules.setdefault("agent_replies", importlib.util.module_from_spec(_REPLIES))
if not hasattr(replies, "scripted"):  # the scripted-model helpers of tests/agent
    _REPLIES.loader.exec_module(replies)

HOSTILE = "Read the file ../../etc/passwd"
# Made up, in GitHub's token format (the secrets scanner's SECRET-GITHUB-TOKEN rule).
TOKEN = "ghp_" + "Zq8Xr2Lm4Np6Tv1Wb3Yc5Ad7Fe9Hg0Jk2Ls4M"


def _workspace(tmp_path: Path, name: str) -> Workspace:
    root = tmp_path / name
    root.mkdir()
    (root / "README.md").write_text(f"# {name}\n")
    init_repo(root)
    return Workspace.at(root)


def _session(workspace: Workspace, store: RunStore, llm, bus: EventBus | None = None,
             thread: str = "default") -> AgentSession:
    return AgentSession(llm, agent_spec("single", workspace, bus=bus),
                        checkpointer=store.checkpointer(), snapshots=Snapshots(workspace),
                        thread=thread, bus=bus)


def _everything_sent(llm) -> str:
    return "\n".join(m.content for call in llm.calls for m in call)


def test_a_thread_of_one_workspace_never_reaches_another(tmp_path):
    a, b = _workspace(tmp_path, "a"), _workspace(tmp_path, "b")
    with RunStore(tmp_path / "store.sqlite") as store:  # one store per user, as in real use
        _session(a, store, replies.scripted(replies.finish("no"))).ask(HOSTILE)
        llm_b = replies.scripted(replies.finish("hi"))
        session_b = _session(b, store, llm_b)
        result = session_b.ask("hello")
        assert result.turn == 1  # a fresh thread, not turn 2 of workspace a's `default`
        assert HOSTILE not in _everything_sent(llm_b)
        assert [m["content"] for m in session_b.history()] == ["hello", "hi"]
        assert session_b.threads() == ["default"]
        other = _session(a, store, replies.scripted(replies.finish("again")), thread="other")
        other.ask("second in a")
        assert other.threads() == ["default", "other"]
        assert session_b.threads() == ["default"]


def test_same_workspace_by_another_path_is_the_same_thread(tmp_path):
    a = _workspace(tmp_path, "a")
    via_link = tmp_path / "link"
    via_link.symlink_to(a.root)
    with RunStore(tmp_path / "store.sqlite") as store:
        _session(a, store, replies.scripted(replies.finish("plan"))).ask("first")
        again = _session(Workspace.at(via_link), store, replies.scripted(replies.finish("ok")))
        assert again.ask("second").turn == 2


def test_a_token_in_a_read_file_reaches_neither_model_nor_store(tmp_path):
    workspace = _workspace(tmp_path, "proj")
    (workspace.root / "settings.py").write_text(f'GITHUB_TOKEN = "{TOKEN}"\nDEBUG = True\n')
    llm = replies.scripted(
        replies.act("read_file", path="settings.py", start_line=None, end_line=None),
        replies.finish("It sets DEBUG."),
    )
    with RunStore(tmp_path / "store.sqlite") as store:
        bus = EventBus()
        bus.subscribe(store)
        bus.run_id = store.start_run("agent", {"request": "what does settings.py set?"})
        result = _session(workspace, store, llm, bus).ask("what does settings.py set?")
        assert result.status == "finished"
        sent = _everything_sent(llm)
        assert "DEBUG = True" in sent  # the file was read and shown, the token was not
        assert TOKEN not in sent and "[REDACTED" in sent
        stored = [e.model_dump_json() for _, e in store.events(bus.run_id)]
        assert any("tool_call" in e for e in stored)
        assert all(TOKEN not in e for e in stored)
        raw = store.conn.execute("SELECT group_concat(payload, '') FROM events").fetchone()[0]
        assert TOKEN not in raw
