"""The README's first command (`make demo`) on the scripted model CI gives it: every stage runs,
the task is solved, and the script holds exactly the replies the run asks for."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import typer
import yaml
from typer.testing import CliRunner

from codeloop.commands import solve_cmd

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "examples/demo/count_vowels.script.yaml"


def _demo_args() -> list[str]:
    """The `codeloop solve` arguments of the Makefile's demo recipe, so the test follows it."""
    recipe = re.search(r"^demo:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    recipe = re.sub(r"\$\(if \$\(DEMO_MODEL\),--model \$\(DEMO_MODEL\)\)", "", recipe)
    words = shlex.split(recipe)
    return words[words.index("solve") + 1:]


def test_the_demo_solves_on_its_script_and_uses_every_reply(monkeypatch):
    monkeypatch.chdir(ROOT)
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        pass

    solve_cmd.register(app)
    result = CliRunner().invoke(app, ["solve", *_demo_args(), "--model", f"scripted:{SCRIPT}"])
    assert result.exit_code == 0, result.output
    for stage in ("analysis", "planning", "generation", "refinement round 1"):
        assert stage in result.output
    replies = yaml.safe_load((ROOT / SCRIPT).read_text())
    assert result.output.count(f"model scripted:{SCRIPT}") == len(replies)
