"""`codeloop runs` (table, --json, filters, dead runs shown as interrupted) and the refusals
of `codeloop approve` / `codeloop reject` (unknown, finished, another job's run, no message):
one line, exit 2, the store unchanged. Runs are made with the real store, a dead one by a
real process that exits while its run is still "running"."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from codeloop.commands import runs_cmd
from codeloop.events import LLMCall
from codeloop.store import RunStore


def _app() -> typer.Typer:
    app = typer.Typer()
    runs_cmd.register(app)
    return app


def _invoke(*args):
    return CliRunner().invoke(_app(), list(args), env={"COLUMNS": "200"})


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "runs.sqlite"


@pytest.fixture
def runs(store_path):
    """A solve run (tokens in its result), an agent run (tokens as an int, model only in its
    events), a review run waiting for approval, a finished review run, and a run whose
    process died while it was running."""
    ids = {}
    with RunStore(store_path) as store:
        with store.run("solve", {"model": "scripted:solve.yaml"}) as run:
            run.finish("passed", {"totals": {"prompt_tokens": 100, "completion_tokens": 20}})
        ids["solve"] = run.id
        with store.run("agent", {"request": "x"}) as run:
            run.bus.emit(LLMCall(model="ollama:qwen", prompt_tokens=5, completion_tokens=2))
            run.finish("done", {"tokens": 77})
        ids["agent"] = run.id
        with store.run("review", {"model": "scripted:r.yaml"}) as run:
            run.pause("awaiting_approval", {"tokens": {"total": 1234, "per_node": {}}})
        ids["waiting"] = run.id
        with store.run("review", {"model": "scripted:r.yaml"}) as run:
            run.finish("applied", {"tokens": {"total": 50, "per_node": {}}})
        ids["applied"] = run.id
    code = ("import sys; from codeloop.store import RunStore\n"
            "s = RunStore(sys.argv[1]); print(s.start_run('review', {'model': 'm'}))")
    ids["dead"] = subprocess.run([sys.executable, "-c", code, str(store_path)], check=True,
                                 capture_output=True, text=True).stdout.strip()
    return ids


def test_runs_as_json_with_models_tokens_and_dead_runs_interrupted(store_path, runs):
    result = _invoke("runs", "--json", "--store", str(store_path))
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert set(rows) == set(runs.values())
    assert rows[runs["solve"]]["tokens"] == 120
    assert rows[runs["solve"]]["model"] == "scripted:solve.yaml"
    assert rows[runs["agent"]]["tokens"] == 77
    assert rows[runs["agent"]]["model"] == "ollama:qwen"  # from its model calls
    assert rows[runs["waiting"]]["waiting"] is True
    assert rows[runs["waiting"]]["tokens"] == 1234
    assert rows[runs["dead"]]["status"] == "interrupted"
    assert rows[runs["dead"]]["tokens"] is None
    assert sum(row["waiting"] for row in rows.values()) == 1
    assert all(row["started"].endswith("Z") and row["age_seconds"] >= 0
               for row in rows.values())
    with RunStore(store_path) as store:  # the store itself now says so too
        assert store.get_run(runs["dead"]).status == "interrupted"


def test_runs_filters_by_job_and_status(store_path, runs):
    result = _invoke("runs", "--json", "--job", "review", "--status", "awaiting_approval",
                     "--store", str(store_path))
    assert [row["id"] for row in json.loads(result.stdout)] == [runs["waiting"]]
    result = _invoke("runs", "--json", "--job", "review", "--store", str(store_path))
    assert {row["id"] for row in json.loads(result.stdout)} == {
        runs["waiting"], runs["applied"], runs["dead"]}
    result = _invoke("runs", "--json", "--limit", "2", "--store", str(store_path))
    assert len(json.loads(result.stdout)) == 2


def test_runs_table_highlights_waiting_runs_and_says_how_to_decide(store_path, runs):
    result = _invoke("runs", "--store", str(store_path))
    assert result.exit_code == 0, result.output
    out = result.stdout
    for run_id in runs.values():
        assert run_id in out
    waiting_line = next(line for line in out.splitlines() if runs["waiting"] in line)
    assert "awaiting approval" in waiting_line and "1,234" in waiting_line
    assert "1 run(s) awaiting approval" in out
    assert f'codeloop approve {runs["waiting"]} -m "LGTM" --store {store_path}' in out
    assert "interrupted" in next(line for line in out.splitlines() if runs["dead"] in line)


def test_runs_on_an_empty_store(store_path):
    result = _invoke("runs", "--store", str(store_path))
    assert result.exit_code == 0 and "no runs in" in result.stdout
    assert json.loads(_invoke("runs", "--json", "--store", str(store_path)).stdout) == []


def _state(store_path):
    with RunStore(store_path) as store:
        return [(r.id, r.status, len(store.events(r.id))) for r in store.list_runs()]


@pytest.mark.parametrize("command", ["approve", "reject"])
def test_approve_and_reject_refuse_what_is_not_a_waiting_review(store_path, runs, command):
    with RunStore(store_path) as store:  # a solve run paused at an approval of its own
        with store.run("solve", {}) as run:
            run.pause("awaiting_approval", {})
        paused_solve = run.id
        store.mark_interrupted()  # what any command does first with a dead run
    before = _state(store_path)
    cases = [("no-such-run", "no run 'no-such-run'"),
             (runs["applied"], "is succeeded, not waiting for approval"),
             (runs["solve"], "is a solve run"),
             (paused_solve, "is a solve run"),
             (runs["dead"], "is interrupted, not waiting for approval: continue it with `codeloop review --resume")]
    for run_id, needle in cases:
        result = _invoke(command, run_id, "-m", "a message", "--store", str(store_path))
        assert result.exit_code == 2, result.output
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and needle in lines[0], result.stderr
        assert "Traceback" not in result.output
    assert _state(store_path) == before


def test_a_rejection_needs_a_message(store_path, runs):
    before = _state(store_path)
    for extra in ([], ["-m", "  "]):
        result = _invoke("reject", runs["waiting"], *extra, "--store", str(store_path))
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1 and "needs a message" in result.stderr
    assert _state(store_path) == before


def test_age_reads_like_people_say_it():
    assert [runs_cmd.age(s) for s in (0, 59, 60, 3599, 3600, 86_399, 86_400 * 3)] == [
        "0s", "59s", "1m", "59m", "1h", "23h", "3d"]
