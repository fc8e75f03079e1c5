"""`codeloop agent --json` without `-p` has nothing to print as JSON (the interactive session
has no JSON form): it says what is missing at once and touches nothing in the workspace."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from codeloop.commands import agent_cmd


def _app():
    app = typer.Typer()
    agent_cmd.register(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the group
        """Nothing."""

    return app


def test_json_without_a_request_names_what_is_missing_and_changes_nothing(tmp_path):
    home = tmp_path / "plain"
    home.mkdir()
    (home / "notes.txt").write_text("hello\n")
    result = CliRunner().invoke(_app(), ["agent", "--home", str(home), "--json",
                                         "--model", "scripted:/nonexistent.yaml"], input="")
    assert result.exit_code == 2
    assert "--json needs a request" in result.output
    assert "-p" in result.output
    assert not (home / ".git").exists()  # no repository was made for a run that cannot start
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt"]
