"""benchmarks/peers/review_peers.py with no model: aider's command line holds the case's
request and files, and a stand-in peer's work is scored exactly as review_bench scores a
review (hidden tests AND the planted finding; a peer's git repository is not a change)."""

from __future__ import annotations

import argparse
import sys

import pytest
from bench_modules import load_peers_script


@pytest.fixture
def rp(monkeypatch):
    return load_peers_script(monkeypatch, "review_peers")


@pytest.fixture
def proxy(rp):
    counting = rp.peers.CountingProxy("http://127.0.0.1:9")  # never asked: no model here
    yield counting
    counting.close()


def _args(tmp_path, timeout=60.0):
    return argparse.Namespace(lock=tmp_path / "model.lock", timeout=timeout, n_ctx=4096,
                              max_tokens=512)


def _stand_in(script: str):
    """A peer that runs `script` (python) in the workspace instead of aider."""
    return lambda run: ([sys.executable, "-c", script], {})


def test_aider_gets_the_request_the_review_files_and_the_test_command(rp, tmp_path):
    [case] = rp.cases_mod.load_cases(["failing_test"])
    root = rp.cases_mod.materialise(case, tmp_path / "ws")
    run = rp.peer_run(case, root, tmp_path, "http://127.0.0.1:1/v1", "m", _args(tmp_path))
    argv, _ = rp.peers.aider_command(run)
    # the files `codeloop review FILES` gets, not every file the request names
    assert argv[-3:] == ["--message", case.request, "text_utils.py"]
    assert argv[argv.index("--edit-format") + 1] == "whole"
    assert argv[argv.index("--test-cmd") + 1] == rp.TEST_COMMAND and "--auto-test" in argv
    [secret] = rp.cases_mod.load_cases(["hardcoded_secret"])  # no tests in its workspace
    root = rp.cases_mod.materialise(secret, tmp_path / "ws2")
    run = rp.peer_run(secret, root, tmp_path, "http://127.0.0.1:1/v1", "m", _args(tmp_path))
    assert "--auto-test" not in rp.peers.aider_command(run)[0]


def test_a_peer_that_writes_the_reference_fix_is_fixed(rp, proxy, tmp_path):
    [case] = rp.cases_mod.load_cases(["sql_injection"])
    fix = (case.folder / "reference" / "users.py").read_text()
    script = f"open('users.py', 'w').write({fix!r})"
    logs = tmp_path / "logs"
    logs.mkdir()
    result = rp.run_case(case, proxy, "m", _args(tmp_path), logs=logs,
                         command=_stand_in(script + "; print('done')"))
    assert result.fixed and result.hidden_passed and result.violations == []
    assert result.mode == "aider" and result.status == "done" and result.exit_code == 0
    assert result.changed == ["users.py"]  # the peer's .git is not a change
    assert (logs / "sql_injection.log").read_text().strip() == "done"


def test_a_peer_that_changes_nothing_or_hits_the_cap_is_not_fixed(rp, proxy, tmp_path):
    [case] = rp.cases_mod.load_cases(["sql_injection"])
    idle = rp.run_case(case, proxy, "m", _args(tmp_path), command=_stand_in("pass"))
    assert not idle.fixed and idle.changed == []
    assert idle.violations == ["B608 in users.py line 22"]
    slow = rp.run_case(case, proxy, "m", _args(tmp_path, timeout=1),
                       command=_stand_in("import time; time.sleep(30)"))
    assert not slow.fixed and slow.status == "timeout" and slow.exit_code == -9
    assert slow.seconds < 20


def test_a_peer_that_only_silences_the_check_is_not_fixed(rp, proxy, tmp_path):
    [case] = rp.cases_mod.load_cases(["sql_injection"])
    # the finding gone by deleting the function: the hidden tests catch it
    script = "open('users.py', 'w').write('import sqlite3\\n')"
    result = rp.run_case(case, proxy, "m", _args(tmp_path), command=_stand_in(script))
    assert not result.fixed and result.violations == [] and not result.hidden_passed


def test_the_report_puts_the_peer_beside_the_engine(rp, tmp_path):
    [case] = rp.cases_mod.load_cases(["off_by_one"])
    ours = rp.bench.CaseResult(
        case="off_by_one", kind="off_by_one", mode="diff", fixed=True, hidden_passed=True,
        hidden_summary="3 passed", violations=[], checks=0, status="applied",
        workflow_type="review", exit_code=0, introduced=[], changed=["paging.py"], tokens=900,
        refinements=[{"prompt_tokens": 300, "completion_tokens": 60}], seconds=10.0)
    workspace = rp.cases_mod.materialise(case, tmp_path / "ws")
    before = rp.cases_mod.serious_findings(workspace, list(case.files))
    theirs = rp.bench.scored(case, workspace, before, mode="aider", status="done",
                             workflow_type="", exit_code=0, tokens=700, seconds=20.0,
                             model_calls=3)
    text = rp.bench.markdown([ours, theirs], {"model": "m", "command": "c", "commit": "x",
                                              "date": "d", "machine": "m"})
    assert "| diff: fixed |" in text and "| aider: fixed |" in text
    assert "| off_by_one | off_by_one | **yes** | applied | 900 | 1 / 360 | 0 | 10 | no | " \
        "done | 700 | 0 / - | 0 | 20 |" in text
    assert "| aider | 0/1 |" in text and "| diff | 1/1 |" in text
