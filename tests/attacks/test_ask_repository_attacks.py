"""A hostile repository against the ask job: links out of the repository, a .gitignore that
tries to re-include what the walk skips, a fifo, names that carry terminal escapes, and
citations that point outside. Nothing outside is read, nothing hangs, nothing raw reaches
the terminal."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from typer.testing import CliRunner

from codeloop.ask.grounding import check_grounding
from codeloop.ask.service import ask
from codeloop.ask.tools.walk import RepoIndex
from codeloop.cli import app

FIXTURE = Path(__file__).parent.parent / "ask" / "fixtures" / "pyapp"
SECRET = "TOPSECRET-do-not-read-9f2c"


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"TOKEN = '{SECRET}'\n")
    return repo, outside


def _everything_read(index: RepoIndex) -> str:
    return "\n".join(index.text(rel) for rel in index.files)


def test_symlinks_out_of_the_repository_are_not_followed(tmp_path):
    repo, outside = _repo(tmp_path)
    (repo / "pyapp" / "leak.py").symlink_to(outside / "secret.py")
    (repo / "vendor").symlink_to(outside, target_is_directory=True)
    index = RepoIndex.open(repo)
    assert "pyapp/leak.py" not in index.files and not any(f.startswith("vendor") for f in index.files)
    assert index.skipped["symlinks"] == 2
    assert SECRET not in _everything_read(index)
    result = ask("Analyze this repository", repo, None)
    assert SECRET not in result.final_output
    assert SECRET not in str(result.model_dump())


def test_a_hardlink_to_an_outside_file_is_refused(tmp_path):
    repo, outside = _repo(tmp_path)
    os.link(outside / "secret.py", repo / "pyapp" / "linked.py")
    index = RepoIndex.open(repo)
    assert "pyapp/linked.py" not in index.files and index.skipped["refused"] == 1
    assert SECRET not in _everything_read(index)


def test_gitignore_cannot_reinclude_hidden_files_or_reach_outside(tmp_path):
    repo, _ = _repo(tmp_path)
    (repo / ".env").write_text(f"KEY={SECRET}\n")
    (repo / ".gitignore").write_text("!.env\n!../outside/secret.py\n!/../../\n")
    index = RepoIndex.open(repo)
    assert ".env" not in index.files
    assert SECRET not in _everything_read(index)


def test_a_fifo_does_not_hang_the_walk(tmp_path):
    repo, _ = _repo(tmp_path)
    os.mkfifo(repo / "pyapp" / "pipe.py")
    index = RepoIndex.open(repo)  # a blocking open would hang here
    assert "pyapp/pipe.py" not in index.files
    assert index.skipped["not a regular file"] == 1


def test_citations_pointing_outside_never_count(tmp_path):
    repo, _ = _repo(tmp_path)
    index = RepoIndex.open(repo)
    answer = ("The token is `TOKEN` (../outside/secret.py:1), see also "
              f"{tmp_path}/outside/secret.py:1 and pyapp/../../outside/secret.py:1.")
    result = check_grounding(answer, index)
    assert result["cited"] >= 2 and result["grounded"] == 0 and result["existing"] == 0


def test_names_with_terminal_escapes_and_markup_are_shown_inert(tmp_path):
    repo, _ = _repo(tmp_path)
    (repo / "pyapp" / "\x1b]52;c;ZXZpbA==\x07evil.py").write_text("X = 1\n")
    (repo / "pyapp" / "[blink]markup[-blink].py").write_text("Y = 2\n")
    (repo / "README.md").write_text("# t\n\nA \x1b[2J\x1b[31mred\x1b[0m purpose line.\n")
    result = CliRunner().invoke(app, ["ask", "Analyze this repository", "--repo", str(repo),
                                      "--no-model", "--store", str(tmp_path / "r.db")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "[blink]markup[-blink].py" in result.output  # shown as text, not as markup
