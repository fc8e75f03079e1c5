"""A review that stopped on a model or harness error resumes from its last checkpoint (issue
50: after a reject, a model error ended the run as `error` and `--resume` said "nothing to
do"). The run is kept resumable, the outcome still says what went wrong, and a resume with a
working model goes on from the node that failed, through to approval."""

from __future__ import annotations

import typer
import yaml
from review_helpers import BUGGY, FIX_EDIT, FIXED, approve, tree_hash
from typer.testing import CliRunner

from codeloop.commands import review_cmd, runs_cmd
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, resume_review, start_review
from codeloop.store import RunStore

SWAPPED = ("calc.py\n<<<<<<< SEARCH\n    return a + b\n=======\n    return b + a\n"
           ">>>>>>> REPLACE\n")


def _cli(*args: str):
    app = typer.Typer()
    review_cmd.register(app)
    runs_cmd.register(app)
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def _waiting_then_rejected_into(failure: list, workspace, store):
    """A run waiting with the fix, rejected; the refiner's model then fails as `failure`
    says (a script run out, or an error raised). Returns the run id."""
    llm = ScriptedLLM([approve(), FIX_EDIT, approve(), *failure])
    first = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    assert first.status == "awaiting_approval"
    stopped = decide_review(first.run_id, approved=False, message="operands the other way",
                            llm=llm, store=store, digest=first.diff_digest)
    assert stopped.status == "error" and "review stopped" in stopped.message
    assert "--resume" in stopped.message  # it says how to go on
    return first.run_id


def test_a_model_that_runs_out_after_a_reject_resumes_to_approval(workspace, store):
    run_id = _waiting_then_rejected_into([], workspace, store)
    before = tree_hash(workspace)
    assert store.get_run(run_id).status == "interrupted"  # resumable, not a dead end
    llm = ScriptedLLM([SWAPPED, approve()])
    out = resume_review(run_id, llm, store)
    assert out.status == "awaiting_approval", out.message
    assert "a person rejected the change: operands the other way" in llm.calls[0][-1].content
    assert out.pending_diffs[0]["modified_content"] == "def add(a, b):\n    return b + a\n"
    assert llm.remaining == 0 and tree_hash(workspace) == before
    done = decide_review(run_id, approved=True, message="", llm=llm, store=store,
                         digest=out.diff_digest)
    assert done.status == "applied"


def test_a_raising_model_after_a_reject_resumes_from_the_cli(workspace, tmp_path):
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as store:
        run_id = _waiting_then_rejected_into(
            [{"raise": "BackendUnreachable", "message": "server down"}], workspace, store)
    script = tmp_path / "again.yaml"
    script.write_text(yaml.safe_dump([SWAPPED, approve()]))
    result = _cli("review", "--resume", run_id, "--no-input", "--model", f"scripted:{script}",
                  "--store", str(db))
    assert result.exit_code == 0, result.output
    assert f"Waiting for approval: {run_id}" in result.stdout
    assert "+    return b + a" in result.stdout
    assert (workspace / "calc.py").read_text() == BUGGY


def test_a_model_error_before_any_decision_also_resumes(workspace, store):
    llm = ScriptedLLM([{"raise": "BackendTimeout", "message": "too slow"}])
    out = start_review(ReviewRequest(workspace=workspace, files=["calc.py"]), llm, store)
    assert out.status == "error" and "too slow" in out.message
    assert store.get_run(out.run_id).status == "interrupted"
    again = resume_review(out.run_id, ScriptedLLM([approve(), FIX_EDIT, approve()]), store)
    assert again.status == "awaiting_approval"
    assert again.pending_diffs[0]["modified_content"] == FIXED
