"""Task ids become git branch names (`task/<id>`) and worktree directories: an id git would
refuse (`a..b`, `a.lock`, `a.`) is refused up front, through the CLI, in one line naming the
id and the rule, with nothing created; every id that is accepted is one git accepts."""

from __future__ import annotations

import json
import subprocess

import pytest
from typer.testing import CliRunner

from codeloop.build.request import BuildRequestError, parse_request
from codeloop.cli import app

BAD_IDS = {
    "a..b": "'..'", "a.lock": "'.lock'", "a.": "end with '.'", "-x": "start with",
    "a b": "letters", "a~1": "letters", "a^": "letters", "a:b": "letters", "@{": "letters",
    "a//b": "letters", "x.lock": "'.lock'", "T1..": "'..'", ".hidden": "start with",
}


@pytest.mark.parametrize("bad", sorted(BAD_IDS))
def test_a_task_id_git_would_refuse_is_one_line_exit_2_and_nothing_created(tmp_path, bad):
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"tasks": [
        {"id": "T1", "description": "first"},
        {"id": bad, "description": "second", "depends_on": ["T1"]}]}))
    result = CliRunner().invoke(app, ["build", str(tasks), "--out", str(out), "--stack",
                                      "python-api", "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert repr(bad) in lines[0] and "field id" in lines[0], lines[0]
    assert BAD_IDS[bad] in lines[0], lines[0]
    assert not out.exists() and not store.exists()


CANDIDATES = ["T1", "a.b", "a-b", "a_b", "A9", "a.lockb", "lock", "a.b.c", "a..b", "a.lock",
              "a.", "x" * 64, "1", "a-", "a_", "a.-", "a.L0CK", "a.LOCK"]


def test_every_accepted_id_is_a_branch_name_git_accepts():
    accepted = []
    for candidate in CANDIDATES:
        try:
            parse_request({"tasks": [{"id": candidate, "description": "x"}]})
        except BuildRequestError:
            continue
        accepted.append(candidate)
        proc = subprocess.run(["git", "check-ref-format", "--branch", f"task/{candidate}"],
                              capture_output=True, check=False)
        assert proc.returncode == 0, candidate
    assert "a.lockb" in accepted and "a..b" not in accepted and "a." not in accepted
