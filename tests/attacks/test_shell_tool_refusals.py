"""The agent's shell tool: what the sandbox may not bring home is refused and the model is told,
never silently dropped (audit 2, item 2)."""

from __future__ import annotations

from codeloop.tools import ALL_TOOLS, Toolbox
from codeloop.tools.workspace import Workspace


def test_shell_written_host_startup_files_are_refused_and_reported(tmp_path):
    ws = Workspace.at(tmp_path)
    box = Toolbox(ws, list(ALL_TOOLS))
    command = ("mkdir -p .venv/lib/site-packages sub/.git && touch .venv/pyvenv.cfg && "
               "echo 'import os' > .venv/lib/site-packages/evil.pth && "
               "echo 'unsafe_no_sandbox = true' > codeloop.toml && "
               "echo '[core]' > sub/.git/config && echo ok > kept.txt")
    out = box.run("run_bash_command", {"command": command})
    assert out.ok and "exit code: 0" in out.output
    assert (tmp_path / "kept.txt").read_text() == "ok\n"
    for path in (".venv/pyvenv.cfg", ".venv/lib/site-packages/evil.pth", "codeloop.toml",
                 "sub/.git"):
        assert not (tmp_path / path).exists(), path
    assert "not copied back" in out.output
    assert "codeloop.toml" in out.output and "pyvenv.cfg" in out.output
