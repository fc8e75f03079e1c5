"""`codeloop runs --job/--status` take only values a run can have: anything else is one line
and exit 2, before the store is opened. The values come from one place (run_statuses.py),
and every word the jobs' own status types can finish with is checked here to settle into
that set, so that a new one cannot be missed."""

from __future__ import annotations

import json
from typing import get_args

import pytest
import typer
from typer.testing import CliRunner

from codeloop.commands import runs_cmd
from codeloop.run_statuses import JOB_WORDS, JOBS, STATUSES
from codeloop.store import RunStore


def _invoke(*args: str):
    app = typer.Typer()
    runs_cmd.register(app)
    return CliRunner().invoke(app, ["runs", *args], env={"COLUMNS": "200"})


@pytest.mark.parametrize(("flag", "value"), [("--status", "bogus"), ("--job", "bogus"),
                                             ("--status", "PASSED"), ("--job", "solve ")])
def test_an_unknown_filter_value_is_refused_in_one_line(tmp_path, flag, value):
    store = tmp_path / "runs.sqlite"
    result = _invoke(flag, value, "--store", str(store))
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"unknown {flag[2:]} {value!r}" in lines[0]
    assert "use one of" in lines[0]
    assert not store.exists()  # refused before anything was opened or created


def test_known_filter_values_still_filter(tmp_path):
    store = tmp_path / "runs.sqlite"
    with RunStore(store) as runs:
        with runs.run("solve", {}) as run:
            run.finish("passed", {})
        with runs.run("agent", {}) as run:
            run.finish("done", {})
    result = _invoke("--job", "solve", "--status", "succeeded", "--json", "--store", str(store))
    assert result.exit_code == 0, result.output
    assert [(r["job"], r["outcome"]) for r in json.loads(result.stdout)] == [
        ("solve", "tests passed")]
    empty = _invoke("--status", "interrupted", "--json", "--store", str(store))
    assert empty.exit_code == 0 and json.loads(empty.stdout) == []


def test_the_one_list_covers_every_status_the_jobs_declare():
    from codeloop.agent.multi.schemas import FinalStatus
    from codeloop.jobs.react.state import Status
    from codeloop.review.service import ReviewOutcome
    from codeloop.server.routes_runs import Job
    from codeloop.server.run_manager import CANCELLED

    review = set(get_args(ReviewOutcome.model_fields["status"].annotation))
    assert review - {"awaiting_approval", "error"} <= set(JOB_WORDS["review"])
    # The agent finishes "done" or with why it stopped; "running"/"finished" never end a run.
    stops = set(get_args(Status)) - {"running", "finished", "error"}
    assert stops | {"needs_review"} <= set(JOB_WORDS["agent"])
    assert "needs_review" in get_args(FinalStatus)
    assert set(get_args(Job)) == set(JOBS) and CANCELLED in STATUSES
