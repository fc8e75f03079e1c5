"""run_bash_command runs in the sandbox with the workspace mounted."""

from codeloop.tools import ALL_TOOLS, Toolbox


def test_command_runs_in_the_workspace_and_can_write(box, ws):
    (ws.root / "hello.py").write_text("print('hi from', __name__)\n")
    out = box.run("run_bash_command", {"command": "python hello.py && echo made > out.txt"})
    assert out.ok and "exit code: 0" in out.output and "hi from __main__" in out.output
    assert (ws.root / "out.txt").read_text() == "made\n"


def test_failing_command_shows_exit_code_and_stderr(box):
    out = box.run("run_bash_command", {"command": "echo oops >&2; exit 3"})
    assert out.ok  # the tool worked; the command failed
    assert out.output.startswith("exit code: 3") and "stderr:\noops" in out.output


def test_timeout_is_reported(box):
    out = box.run("run_bash_command", {"command": "sleep 5", "timeout": 1})
    assert "ran past the 1s timeout" in out.output


def test_no_network_inside(box):
    out = box.run("run_bash_command", {
        "command": "python -c \"import socket; socket.create_connection(('1.1.1.1', 53), 2)\""})
    assert "exit code: 0" not in out.output


def test_read_only_mode_cannot_change_files(ws):
    box = Toolbox(ws.with_shell_mode("ro"), list(ALL_TOOLS))
    out = box.run("run_bash_command", {"command": "echo x > new.txt"})
    assert "exit code: 0" not in out.output and "read-only" in out.output
    assert not (ws.root / "new.txt").exists()
