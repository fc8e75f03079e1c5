"""`codeloop review` refuses bad input before anything runs: one line on stderr, exit code 2,
no traceback, no run recorded, the workspace untouched. No model is ever called here (the
scripted model's script is empty: a call would fail the test loudly)."""

from __future__ import annotations

import hashlib
import subprocess

import pytest
import typer
from typer.testing import CliRunner

from codeloop.commands import review_cmd, runs_cmd


def _app() -> typer.Typer:
    app = typer.Typer()
    review_cmd.register(app)
    runs_cmd.register(app)
    return app


def _tree(root) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "app"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    return root


@pytest.fixture
def model(tmp_path):
    script = tmp_path / "empty.yaml"
    script.write_text("[]\n")
    return f"scripted:{script}"


def _refused(tmp_path, ws, args, *needles):
    """Run the CLI, expect exit 2 with one `error:` line naming `needles`, and nothing
    written: the workspace byte-identical, no run store created."""
    before = _tree(ws)
    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(_app(), [*args, "--store", str(store)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert "Traceback" not in result.output and result.stdout == ""
    assert _tree(ws) == before
    assert not store.exists()
    return lines[0]


def test_a_file_outside_the_workspace(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "../outside.py", "-r", "harden it", "-w", str(ws),
                            "--model", model], "../outside.py")
    _refused(tmp_path, ws, ["review", str(tmp_path / "outside.py"), "-r", "harden it",
                            "-w", str(ws), "--model", model], "outside.py")


def test_a_symlink_out_of_the_workspace(tmp_path, ws, model):
    (ws / "link.py").symlink_to(tmp_path / "outside.py")
    _refused(tmp_path, ws, ["review", "link.py", "-r", "harden it", "-w", str(ws),
                            "--model", model], "link.py")


def test_a_missing_file(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "nope.py", "-w", str(ws), "--model", model],
             "nope.py", "no such file")


def test_git_in_a_workspace_that_is_no_repository(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "--git", "HEAD~1", "-w", str(ws), "--model", model],
             "not a git repository")


def test_an_unknown_revision_and_an_option_passed_as_revision(tmp_path, ws, model):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    for args in (["init", "-q"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=ws, check=True, env=env)
    _refused(tmp_path, ws, ["review", "--git", "no-such-branch", "-w", str(ws),
                            "--model", model], "unknown revision")
    _refused(tmp_path, ws, ["review", "--git=--output=/tmp/x", "-w", str(ws),
                            "--model", model], "not a revision")


def test_an_empty_request(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "", "-w", str(ws), "--model", model], "empty")
    _refused(tmp_path, ws, ["review", "   ", "-w", str(ws), "--model", model], "empty")
    _refused(tmp_path, ws, ["review", "calc.py", "--request", " ", "-w", str(ws),
                            "--model", model], "--request is empty")


def test_nothing_to_review(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "-w", str(ws), "--model", model], "nothing to review")


def test_a_workspace_that_is_not_a_directory(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "Add a docstring", "-w", str(ws / "calc.py"),
                            "--model", model], "not a directory")
    _refused(tmp_path, ws, ["review", "Add a docstring", "-w", str(tmp_path / "gone"),
                            "--model", model], "does not exist")


def test_two_requests_and_contradicting_flags(tmp_path, ws, model):
    _refused(tmp_path, ws, ["review", "Add a docstring", "and tests please", "-w", str(ws),
                            "--model", model], "give one change request")
    _refused(tmp_path, ws, ["review", "calc.py", "--approve", "--no-input", "-w", str(ws),
                            "--model", model], "--approve and --no-input")
    _refused(tmp_path, ws, ["review", "calc.py", "--refiner", "whole", "-w", str(ws),
                            "--model", model], "--refiner")


def test_a_protected_file_is_refused_as_a_target(tmp_path, ws, model):
    (ws / "codeloop.toml").write_text("model = 'x'\n")
    _refused(tmp_path, ws, ["review", "codeloop.toml", "-r", "change it", "-w", str(ws),
                            "--model", model], "codeloop.toml")


def test_an_unknown_model_spec(tmp_path, ws):
    _refused(tmp_path, ws, ["review", "calc.py", "-w", str(ws), "--model", "local:no-such-model"],
             "unknown local model")


def test_targets_split_into_request_and_files(tmp_path, ws):
    root = ws
    assert review_cmd.split_targets(["Add input validation"], None, root) == (
        "Add input validation", [])
    assert review_cmd.split_targets(["refactor", "calc.py"], None, root) == (
        "refactor", ["calc.py"])
    # A path-like name that does not exist is a file (so it is reported missing), not a
    # request; so is a name that exists without looking like one.
    (root / "Makefile").write_text("all:\n")
    assert review_cmd.split_targets(["src/app.py", "Makefile"], None, root) == (
        None, ["src/app.py", "Makefile"])
    assert review_cmd.split_targets(["calc.py"], "use ints", root) == ("use ints",
                                                                        ["calc.py"])
