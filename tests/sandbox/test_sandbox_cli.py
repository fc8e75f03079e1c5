"""`codeloop sandbox run`: output, summary on stderr, the command's exit code."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from codeloop.commands import sandbox_cmd


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """codeloop"""

    sandbox_cmd.register(app)
    return app


def _invoke(*args: str):
    return CliRunner().invoke(_app(), ["sandbox", "run", *args])


def test_runs_the_command_and_exits_with_its_code(tmp_path):
    (tmp_path / "hello.txt").write_text("from the workspace")
    result = _invoke("--timeout", "5", "--workspace", str(tmp_path), "--",
                     "sh", "-c", "cat hello.txt; exit 3")
    assert result.exit_code == 3
    assert result.stdout == "from the workspace"
    assert "[sandbox] exit 3" in result.stderr and "sandboxed" in result.stderr


def test_timeout_is_reported():
    result = _invoke("--timeout", "0.5", "--", "sleep", "5")
    assert result.exit_code == 137
    assert "limit hit: timeout" in result.stderr


def test_bad_options_are_clean_errors(tmp_path):
    assert _invoke("--network", "host", "--", "true").exit_code == 2
    missing = _invoke("--workspace", str(tmp_path / "nope"), "--", "true")
    assert missing.exit_code == 2 and "not a directory" in missing.stderr


def test_unsafe_flag_marks_the_result():
    result = _invoke("--unsafe-no-sandbox", "--", "echo", "hi")
    assert result.exit_code == 0 and result.stdout == "hi\n"
    assert "UNSANDBOXED" in result.stderr
