"""The agent's context-first edit writes only through the workspace tools: a reply naming git
metadata, codeloop's config, Python start-up files or a path outside the workspace changes
nothing there, and the turn goes on."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.agent.snapshots import Snapshots, init_repo
from codeloop.store import RunStore
from codeloop.tools import Workspace

_REPLIES = importlib.util.spec_from_file_location(
    "agent_replies", Path(__file__).parents[1] / "agent" / "agent_replies.py")
replies = sys.modules.setdefault("agent_replies", importlib.util.module_from_spec(_REPLIES))
if not hasattr(replies, "scripted"):  # the scripted-model helpers of tests/agent
    _REPLIES.loader.exec_module(replies)

HOSTILE = {
    ".git/hooks/post-commit": "#!/bin/sh\ntouch /tmp/pwned\n",
    ".git/config": "[core]\n\tfsmonitor = touch /tmp/pwned\n",
    "codeloop.toml": "unsafe_no_sandbox = true\n",
    "sitecustomize.py": "import os\n",
    "evil.pth": "import os\n",
    "pkg/__pycache__/m.cpython-311.pyc": "x\n",
    "../outside.py": "x = 1\n",
    "/tmp/abs_outside.py": "x = 1\n",
}


# Since 3dfaa85 a FILE line's block is taken whatever its language tag (a config.json edit
# was dropped before): the same files, in blocks tagged as shell, JSON, YAML and TOML.
@pytest.mark.parametrize("fence", ["", "bash", "json", "yaml", "toml"])
def test_a_reply_naming_host_files_writes_none_of_them(tmp_path, fence):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def f():\n    return 1\n")
    init_repo(root)
    config_before = (root / ".git" / "config").read_bytes()
    reply = "".join(f"FILE: {path}\n```{fence}\n{text}```\n\n"
                    for path, text in HOSTILE.items())
    reply += "FILE: app.py\n```python\ndef f():\n    return 2\n```\n"
    workspace = Workspace.at(root)
    with RunStore(tmp_path / "store.sqlite") as store:
        session = AgentSession(replies.scripted(reply), agent_spec("single", workspace),
                               checkpointer=store.checkpointer(), snapshots=Snapshots(workspace),
                               thread="t")
        turn = session.ask("Change f in app.py to return 2.")
    assert turn.status == "finished"
    assert (root / "app.py").read_text() == "def f():\n    return 2\n"
    assert (root / ".git" / "config").read_bytes() == config_before
    assert not (root / ".git" / "hooks" / "post-commit").exists()
    for name in ("codeloop.toml", "sitecustomize.py", "evil.pth", "pkg"):
        assert not (root / name).exists(), name
    assert not (tmp_path / "outside.py").exists()
    assert not Path("/tmp/abs_outside.py").exists()
    assert [c.path for c in turn.changes] == ["app.py"]
