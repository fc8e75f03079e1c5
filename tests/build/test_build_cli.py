"""`codeloop build` from the command line: the bundled example end to end on its scripted
model (--json), and bad input as one line, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from codeloop.build.repo import merged_tasks
from codeloop.build.runner import BuildOptions, prepare, resume_mismatch
from codeloop.cli import app
from codeloop.gitutil import git, init_repo
from codeloop.store import RunStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "build" / "todo"
runner = CliRunner()


def test_the_bundled_example_builds_a_working_todo_api(tmp_path):
    out, db, remote = tmp_path / "todo-api", tmp_path / "runs.sqlite", tmp_path / "remote.git"
    result = runner.invoke(app, ["build", str(EXAMPLE / "tasks.json"), "--out", str(out),
                                 "--model", f"scripted:{EXAMPLE / 'scripted.yaml'}",
                                 "--store", str(db), "--json", "--push-to", str(remote)])
    assert result.exit_code == 0, result.output
    final = json.loads(result.stdout)
    assert final["status"] == "COMPLETE"
    assert final["completed_tasks"] == ["T1", "T2", "T3"]
    assert final["levels"] == {"T1": 0, "T2": 1, "T3": 2}
    assert final["integration"]["passed"] is True
    # the example's 9 tests, the harness's 3 of the routes beside T3's own and its 2 of T1's
    # models (their helper beside them, no test itself)
    assert final["integration"]["summary"].startswith("14 passed, 0 failed")
    assert (out / "tests" / "test_routes_contract.py").is_file()
    assert (out / "tests" / "test_models_model_smoke.py").is_file()
    assert (out / "tests" / "codeloop_route_calls.py").is_file()
    main = (out / "app" / "main.py").read_text()
    assert "app.include_router(router)" in main  # the integration agent wired the routes
    # The local bare repository plays the remote: it holds main as it ended.
    assert git(["rev-parse", "main"], remote).stdout == git(["rev-parse", "main"], out).stdout
    assert merged_tasks(remote) == ["T1", "T2", "T3"]
    with RunStore(db) as store:
        record = store.get_run(final["run_id"])
        assert record.status == "succeeded" and record.job == "build"
        assert record.input["stack"] == "python-api"


def run_cli(*args: str):
    return runner.invoke(app, ["build", *args])


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return lines[0]


def test_malformed_requests_exit_2_and_write_nothing(tmp_path):
    out = tmp_path / "out"
    bad = tmp_path / "tasks.json"
    bad.write_text(json.dumps({"tasks": [{"id": "T1", "description": "x",
                                          "depends_on": ["T7"]}]}))
    line = one_line_error(run_cli(str(bad), "--out", str(out), "--stack", "python-api"))
    assert "task 'T1' field depends_on: unknown task 'T7'" in line
    bad.write_text("[1, 2")
    assert "not valid JSON" in one_line_error(run_cli(str(bad), "--out", str(out)))
    assert not out.exists()


def test_stack_problems_exit_2(tmp_path):
    request = tmp_path / "tasks.json"
    request.write_text(json.dumps({"tasks": [{"id": "T1", "description": "x"}]}))
    out = tmp_path / "out"
    assert "no stack" in one_line_error(run_cli(str(request), "--out", str(out)))
    assert "unknown stack 'cobol'" in one_line_error(
        run_cli(str(request), "--out", str(out), "--stack", "cobol"))
    stack = tmp_path / "stack.yaml"
    stack.write_text((Path(__file__).resolve().parents[2] / "src" / "codeloop" / "build" /
                      "stacks" / "go-api.yaml").read_text().replace(
        "binary: go,", "binary: no-such-go-xyz,"))
    line = one_line_error(run_cli(str(request), "--out", str(out), "--stack-file", str(stack)))
    assert "needs `no-such-go-xyz`, which is not on PATH: install Go" in line
    assert not out.exists()


@pytest.mark.parametrize("resume", [False, True])
def test_an_out_dir_in_use_or_without_a_build(tmp_path, resume):
    request = tmp_path / "tasks.json"
    request.write_text(json.dumps({"tech_stack": "python-api",
                                   "tasks": [{"id": "T1", "description": "x"}]}))
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    args = [str(request), "--out", str(out)] + (["--resume"] if resume else [])
    line = one_line_error(run_cli(*args))
    assert ("holds no build" if resume else "exists and is not empty") in line
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize(("target", "expected"), [
    ("git@example.com:me/repo.git", "ssh remotes are not supported"),
    ("ssh://example.com/repo.git", "only https:// URLs or a local path"),
    ("{out}/remote.git", "must be outside the project"),
])
def test_bad_push_targets(tmp_path, target, expected):
    request = tmp_path / "tasks.json"
    request.write_text(json.dumps({"tech_stack": "python-api",
                                   "tasks": [{"id": "T1", "description": "x"}]}))
    out = tmp_path / "out"
    line = one_line_error(run_cli(str(request), "--out", str(out), "--push-to",
                                  target.format(out=out)))
    assert expected in line
    assert not out.exists()


def _stack_file(path: Path, name: str) -> Path:
    data = yaml.safe_load((Path(__file__).resolve().parents[2] / "src" / "codeloop" / "build" /
                           "stacks" / "python-api.yaml").read_text())
    data["name"] = name
    path.write_text(yaml.safe_dump(data))
    return path


def test_resume_refuses_other_stack_stack_file_or_push_target(tmp_path):
    request = tmp_path / "tasks.json"
    request.write_text(json.dumps({"tech_stack": "python-api",
                                   "tasks": [{"id": "T1", "description": "x"}]}))
    out, db, remote = tmp_path / "out", tmp_path / "runs.sqlite", tmp_path / "remote.git"
    mine = _stack_file(tmp_path / "mine.yaml", "my-api")
    same_name = _stack_file(tmp_path / "other.yaml", "my-api")
    # an interrupted build of `out`, with a stack file and a push target
    inputs = prepare(str(request), out_dir=out, stack_file=mine,
                     options=BuildOptions(push_to=str(remote)))
    with RunStore(db) as store:
        with pytest.raises(KeyboardInterrupt), store.run("build", inputs.record()):
            raise KeyboardInterrupt
        (run,) = store.list_runs("build")
        assert run.status == "interrupted"
    init_repo(out)
    script = tmp_path / "script.yaml"
    script.write_text("agents: {}\n")  # no reply: a build that ran would fail otherwise
    base = [str(request), "--out", str(out), "--store", str(db), "--resume",
            "--model", f"scripted:{script}"]
    other_push = tmp_path / "elsewhere.git"
    cases = [
        ([], "--stack python-api differs from the interrupted build's my-api"),
        (["--stack-file", str(same_name)],
         f"--stack-file {same_name} differs from the interrupted build's {mine}"),
        (["--stack-file", str(mine), "--push-to", str(other_push)],
         f"--push-to {other_push} differs from the interrupted build's {remote}"),
        (["--stack-file", str(mine)],
         f"--push-to (none) differs from the interrupted build's {remote}"),
    ]
    for extra, expected in cases:
        line = one_line_error(run_cli(*base, *extra))
        assert expected in line and run.id in line, line
    assert sorted(p.name for p in out.iterdir()) == [".git"]  # nothing ran
    assert git(["rev-parse", "--verify", "-q", "HEAD"], out, check=False).returncode != 0
    with RunStore(db) as store:
        assert store.get_run(run.id).status == "interrupted"  # still there to resume
        same = prepare(str(request), out_dir=out, stack_file=mine, resume=True,
                       options=BuildOptions(push_to=str(remote)))
        assert resume_mismatch(store.get_run(run.id).input, same) is None
