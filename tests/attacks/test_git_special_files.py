"""A workspace's git config that names a special file (a FIFO, a device) as the config itself,
an include, an includeIf or a file git opens by itself (core.excludesFile): host git would
block on it (151 s, then a traceback and a 500). codeloop refuses before git runs, in one
line naming the file, and every host git call is bounded in time with a typed error.

Each setup has a control: plain git on the same repository does block (it is killed after a
short bound), so a quick refusal means codeloop stopped it, not that the setup was wrong.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from codeloop import gitutil
from codeloop.commands import review_cmd, runs_cmd
from codeloop.review.inputs import ReviewInputError, changed_files

PLAIN_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _plain_git(args: list[str], cwd: Path, timeout: float = 3) -> str:
    """'blocked' when plain git did not finish within `timeout`, else its exit code."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=PLAIN_ENV, capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return "blocked"
    return str(proc.returncode)


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    env = {**PLAIN_ENV, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    for args in (["init", "-q", "-b", "main"], ["add", "calc.py"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    (root / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    return root


def _append_config(repo: Path, text: str) -> None:
    with open(repo / ".git" / "config", "a", encoding="utf-8") as fh:
        fh.write(text)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _include_fifo(repo: Path, tmp_path: Path) -> str:
    fifo = _fifo(tmp_path / "plain-fifo")
    _append_config(repo, f"[include]\n\tpath = {fifo}\n")
    return "plain-fifo"


def _include_if_relative_fifo(repo: Path, tmp_path: Path) -> str:
    _fifo(repo / ".git" / "cond-fifo")  # relative includes are read beside the config
    _append_config(repo, '[includeIf "gitdir:/"]\n\tpath = cond-fifo\n')
    return "cond-fifo"


def _nested_include_fifo(repo: Path, tmp_path: Path) -> str:
    inner = _fifo(tmp_path / "inner-fifo")
    middle = tmp_path / "middle.cfg"
    middle.write_text(f"[include]\n\tpath = {inner}\n")
    _append_config(repo, f"[include]\n\tpath = {middle}\n")
    return "inner-fifo"


def _config_is_a_fifo(repo: Path, tmp_path: Path) -> str:
    text = (repo / ".git" / "config").read_text()
    (repo / ".git" / "config").unlink()
    _fifo(repo / ".git" / "config")
    (tmp_path / "config.was").write_text(text)
    return "config"


def _config_links_to_a_fifo(repo: Path, tmp_path: Path) -> str:
    fifo = _fifo(tmp_path / "linked-fifo")
    (repo / ".git" / "config").unlink()
    (repo / ".git" / "config").symlink_to(fifo)
    return "config"


def _excludes_file_fifo(repo: Path, tmp_path: Path) -> str:
    fifo = _fifo(tmp_path / "excludes-fifo")
    _append_config(repo, f"[core]\n\texcludesFile = {fifo}\n")
    return "excludes-fifo"


SETUPS = [_include_fifo, _include_if_relative_fifo, _nested_include_fifo, _config_is_a_fifo,
          _config_links_to_a_fifo, _excludes_file_fifo]


@pytest.mark.parametrize("setup", SETUPS, ids=lambda f: f.__name__.strip("_"))
def test_review_git_refuses_a_config_naming_a_special_file(repo, tmp_path, setup):
    named = setup(repo, tmp_path)
    # Control: plain git blocks on this repository.
    assert _plain_git(["status", "--porcelain"], repo) == "blocked"
    with pytest.raises(ReviewInputError) as caught:
        changed_files(repo, "WORKTREE")
    message = str(caught.value)
    assert "\n" not in message and named in message and "regular file" in message, message


@pytest.mark.parametrize("setup", [_include_fifo, _config_is_a_fifo],
                         ids=lambda f: f.__name__.strip("_"))
def test_every_host_git_call_refuses_it_with_a_typed_error(repo, tmp_path, setup):
    setup(repo, tmp_path)
    with pytest.raises(gitutil.GitError) as caught:
        gitutil.git(["rev-parse", "HEAD"], repo, check=False)
    assert "\n" not in str(caught.value)


def test_the_cli_says_one_line_and_exits_non_zero(repo, tmp_path):
    _include_fifo(repo, tmp_path)
    script = tmp_path / "empty.yaml"
    script.write_text("[]\n")
    app = typer.Typer()
    review_cmd.register(app)
    runs_cmd.register(app)
    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(app, ["review", "--git", "WORKTREE", "-r", "tidy", "-w",
                                      str(repo), "--model", f"scripted:{script}",
                                      "--store", str(store)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "plain-fifo" in lines[0] and "Traceback" not in result.output
    assert not store.exists()


def test_a_git_call_that_blocks_elsewhere_ends_in_a_typed_one_line_error(repo):
    """A FIFO where git reads a ref (no config names it): the time bound ends it."""
    ref = repo / ".git" / "refs" / "heads" / "main"
    ref.unlink()
    _fifo(ref)
    assert _plain_git(["rev-parse", "main"], repo) == "blocked"  # control
    with pytest.raises(gitutil.GitError) as caught:
        gitutil.git(["rev-parse", "main"], repo, timeout=2)
    message = str(caught.value)
    assert "\n" not in message and "did not finish" in message, message


def test_a_harmless_config_with_regular_includes_still_works(repo, tmp_path):
    extra = tmp_path / "extra.cfg"
    extra.write_text("[user]\n\tname = someone\n")
    _append_config(repo, f"[include]\n\tpath = {extra}\n[include]\n\tpath = missing.cfg\n")
    found, diff = changed_files(repo, "WORKTREE")
    assert found == ["calc.py"] and "b + a" in diff
    assert gitutil.git(["config", "user.name"], repo).stdout.strip() == "someone"
