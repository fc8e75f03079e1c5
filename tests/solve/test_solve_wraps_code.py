"""`codeloop solve` in a narrow terminal: the final code is wrapped, never cropped at the
terminal's width (a cropped line reads as code that is not there)."""

from __future__ import annotations

import json

import typer
import yaml
from typer.testing import CliRunner

from codeloop.commands import solve_cmd

# A line far wider than the terminal: words, and one long token without a space.
LONG = ('def describe(n):\n'
        '    return "the number " + str(n) + " is " + ("even" if n % 2 == 0 else "odd") + '
        '"_and_this_token_runs_on_without_any_space_at_all_XYZ"\n')
TASK = {"task_id": "describe", "signature": "def describe(n)",
        "docstring": "Say whether n is even.",
        "examples": 'describe(2) == "the number 2 is even_and_this_token_runs_on_without_any_'
                    'space_at_all_XYZ"'}


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:  # keeps `solve` a subcommand, as in the real app
        pass

    solve_cmd.register(app)
    return app


def _squeezed(text: str) -> str:
    return "".join(text.split())


def test_the_final_code_is_wrapped_not_cropped_in_a_narrow_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([f"```python\n{LONG}```"]))
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([TASK]))
    result = CliRunner().invoke(_app(), ["solve", "--task-file", str(tasks),
                                         "--store", str(tmp_path / "runs.sqlite"),
                                         "--model", f"scripted:{script}"])
    assert result.exit_code == 0, result.output
    assert "Code is correct" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 40  # it is narrow
    # Every character of the code is there, in order (wrapping only adds line breaks).
    assert _squeezed(LONG) in _squeezed(result.output)
