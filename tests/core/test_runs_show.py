"""`codeloop runs show RUN_ID` and the runs list's new columns, on real SQLite stores: what
was asked, the model for every job, the status with its outcome, stages and tokens, the last
events, the commands that act on the run; an unknown id is one line and exit 2; `--status`
takes the set's words and says so when given an old one."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from codeloop.cli import app
from codeloop.events import LLMCall, Progress, StageStart
from codeloop.store import RunStore

BLOCKED_BUILD = {"status": "COMPLETE", "total_tasks": 5, "completed_tasks": ["T1", "T2", "T3"],
                 "blocked_tasks": ["T4", "T5"], "failed_tasks": {}}


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "220"})


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "runs.sqlite"
    ids = {}
    with RunStore(path) as runs:
        with runs.run("build", {"request": {"tasks": [{"id": "T1", "description":
                                                       "A todo API with FastAPI"}] * 5},
                                "out_dir": str(tmp_path / "todo"),
                                "model": "scripted:build.yaml"}) as run:
            run.bus.emit(StageStart(stage="scaffold"))
            run.bus.emit(LLMCall(model="scripted:build.yaml", stage="T1", prompt_tokens=40,
                                 completion_tokens=2))
            run.bus.emit(LLMCall(model="scripted:build.yaml", stage="T1", prompt_tokens=10,
                                 completion_tokens=3))
            run.bus.emit(Progress(done=3, total=5, message="T3 merged"))
            run.finish("complete", BLOCKED_BUILD)
        ids["build"] = run.id
        with runs.run("agent", {"request": "Add a docstring to every function",
                                "home": str(tmp_path), "model": "ollama:qwen"}) as run:
            run.finish("step_cap", {"tokens": 12})
        ids["agent"] = run.id
        with runs.run("review", {"request": "Validate the input", "model": "m",
                                 "workspace": str(tmp_path)}) as run:
            run.pause("awaiting_approval", {"tokens": {"total": 9}})
        ids["waiting"] = run.id
        with runs.run("solve", {"task": {"task_id": "add", "signature": "def add(a, b)"},
                                "model": "scripted:s.yaml"}) as run:
            run.finish("untested", {})
        ids["solve"] = run.id
    return path, ids


def test_the_list_shows_what_each_run_was_its_model_and_status_with_outcome(store):
    path, ids = store
    result = _invoke("runs", "--store", str(path))
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.strip()}
    build = lines[ids["build"]]
    assert build.split()[2] == "failed" and "3 of 5 tasks merged, 2 blocked" in build
    assert "5 task(s): A todo API with FastAPI" in build and "scripted:build.yaml" in build
    assert "succeeded" not in build
    agent = lines[ids["agent"]]
    assert agent.split()[2:5] == ["failed", "step", "cap"] and "ollama:qwen" in agent
    assert "Add a docstring to every function" in agent
    assert "awaiting approval" in lines[ids["waiting"]]
    assert lines[ids["solve"]].split()[2:4] == ["succeeded", "untested"]
    assert "add: def add(a, b)" in lines[ids["solve"]]
    rows = {r["id"]: r for r in json.loads(_invoke("runs", "--json", "--store",
                                                   str(path)).stdout)}
    assert rows[ids["build"]]["status"] == "failed"
    assert rows[ids["build"]]["outcome"] == "3 of 5 tasks merged, 2 blocked"
    assert rows[ids["agent"]]["model"] == "ollama:qwen"
    assert rows[ids["solve"]]["asked"] == "add: def add(a, b)"


def test_the_status_filter_takes_the_set_and_names_an_old_word(store):
    path, ids = store
    failed = json.loads(_invoke("runs", "--status", "failed", "--json", "--store",
                                str(path)).stdout)
    assert {r["id"] for r in failed} == {ids["build"], ids["agent"]}
    old = _invoke("runs", "--status", "passed", "--store", str(path))
    assert old.exit_code == 2
    lines = [line for line in old.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "'passed' is an old status word" in lines[0]
    assert "'succeeded'" in lines[0]


def test_runs_show_prints_the_run_whole(store):
    path, ids = store
    result = _invoke("runs", "show", ids["build"], "--store", str(path))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "5 task(s): A todo API with FastAPI" in out and "scripted:build.yaml" in out
    assert "failed · 3 of 5 tasks merged, 2 blocked" in out
    assert "T1: 55 tokens in 2 call(s)" in out  # stages and tokens from the model calls
    assert "progress 3/5 T3 merged" in out and "start scaffold" in out  # the last events
    assert f"codeloop runs show {ids['build']} --json" in out
    assert "todo" in out  # the run folder


def test_runs_show_json_and_the_commands_of_a_waiting_run(store):
    path, ids = store
    result = _invoke("runs", "show", ids["waiting"], "--json", "--events", "1", "--store",
                     str(path))
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["status"] == "awaiting_approval" and shown["asked"] == "Validate the input"
    assert shown["model"] == "m" and shown["tokens"] == 9
    assert any(c.startswith(f"codeloop approve {ids['waiting']}") for c in shown["commands"])
    assert any(c.startswith(f"codeloop reject {ids['waiting']}") for c in shown["commands"])
    assert all(c.endswith(f"--store {path}") for c in shown["commands"])
    build = json.loads(_invoke("runs", "show", ids["build"], "--json", "--store",
                               str(path)).stdout)
    assert build["stages"]["T1"] == {"prompt_tokens": 50, "completion_tokens": 5, "calls": 2}
    assert [e["type"] for e in build["events"]] == ["stage_start", "llm_call", "llm_call",
                                                    "progress"]


@pytest.mark.parametrize("run_id", ["solve-nope", " ", "../etc/passwd"])
def test_an_unknown_run_is_one_line_and_exit_2(store, run_id):
    path, ids = store
    result = _invoke("runs", "show", run_id, "--store", str(path))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "no run" in lines[0] and "codeloop runs" in lines[0]
    with RunStore(path) as runs:  # nothing lost, nothing added
        assert {r.id for r in runs.list_runs()} == set(ids.values())


def test_runs_show_names_the_command_that_takes_up_an_interrupted_run(store):
    path, _ids = store
    with RunStore(path) as runs:
        review = runs.start_run("review", {"request": "Fix it", "model": "m"})
        runs.finish_run(review, "interrupted", {})
        build = runs.start_run("build", {"out_dir": "/tmp/my todo", "model": "m",
                                         "request": {"tasks": []}})
        runs.finish_run(build, "interrupted", {})
    shown = json.loads(_invoke("runs", "show", review, "--json", "--store", str(path)).stdout)
    assert shown["status"] == "interrupted"
    assert shown["commands"][0] == f"codeloop review --resume {review} --store {path}"
    built = json.loads(_invoke("runs", "show", build, "--json", "--store", str(path)).stdout)
    assert built["commands"][0] == (f"codeloop build TASKS.json --out '/tmp/my todo' --resume "
                                    f"--store {path}")
