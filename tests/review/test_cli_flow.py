"""`codeloop review` end to end on the scripted model: it stops at the approval without a
terminal (exact resume line, exit 0, workspace byte-identical), another process approves (the
files written, the history appended, no model loaded), a rejection comes back refined,
--approve applies, --json keeps stdout clean, --debug prints the one-line logs, a failed run
exits 1, and an interrupted run goes on with --resume."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from codeloop.commands import review_cmd, runs_cmd
from codeloop.store import RunStore

CODELOOP = str(Path(sys.executable).with_name("codeloop"))
DIV = "def div(a, b):\n    return a / b\n"
GUARDED = ('def div(a, b):\n    if b == 0:\n        raise ValueError("division by zero")\n'
           "    return a / b\n")
REQUEST = "raise ValueError on division by zero"
GUARD_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a / b\n=======\n    if b == 0:\n"
              '        raise ValueError("division by zero")\n    return a / b\n'
              ">>>>>>> REPLACE\n")
DOC_EDIT = ("calc.py\n<<<<<<< SEARCH\ndef div(a, b):\n=======\ndef div(a, b):\n"
            '    """a / b; ValueError when b is 0."""\n>>>>>>> REPLACE\n')


def verdict(approved: bool, *issues: str) -> dict:
    return {"json": {"approved": approved, "issues": list(issues), "suggestions": []}}


# Rules answer by what is asked, not by call order (the engine decides which nodes ask):
# the refiner adds the guard (or, told to, a docstring); the reviewer approves a file with
# the guard and finds the missing check otherwise.
GUARDED_CODE = 'raise ValueError("division by zero")'
REFINER = "Reply with every file you change"
REVIEWER = "Answer with JSON"
FIRST_ROUND = [{"match": "add a docstring", "reply": DOC_EDIT},
               {"match": REFINER, "reply": GUARD_EDIT},
               {"match": GUARDED_CODE, **verdict(True)},
               {"match": REVIEWER, **verdict(False, "calc.py:2 div does not check b == 0")}]


def _script(tmp_path: Path, name: str, entries: list) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(entries))
    return f"scripted:{path}"


def _tree(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _app() -> typer.Typer:
    app = typer.Typer()
    review_cmd.register(app)
    runs_cmd.register(app)
    return app


def _cli(*args: str):
    return CliRunner().invoke(_app(), list(args), env={"COLUMNS": "200"})


def _process(*args: str) -> subprocess.CompletedProcess:
    """The real `codeloop` in a process of its own."""
    env = {**os.environ, "COLUMNS": "200", "TERM": "dumb"}
    return subprocess.run([CODELOOP, *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120, check=False)


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "app"
    root.mkdir()
    (root / "calc.py").write_text(DIV)
    return root


@pytest.fixture
def store(tmp_path):
    return str(tmp_path / "runs.sqlite")


def _digest_shown(stdout: str) -> str:
    """The digest the approve line printed with the diffs names."""
    return re.search(r"codeloop approve \S+ --digest ([0-9a-f]{64}) ", stdout).group(1)


def _waiting_run(tmp_path, ws, store) -> tuple[str, str]:
    """A review run left waiting for approval by `--no-input`: its id, and the digest of
    the diffs it showed."""
    before = _tree(ws)
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    result = _cli("review", "calc.py", "-r", REQUEST, "-w", str(ws), "--no-input",
                  "--model", model, "--store", store)
    assert result.exit_code == 0, result.output
    assert _tree(ws) == before  # nothing written before approval
    run_id = re.search(r"Waiting for approval: (review-\S+)", result.stdout).group(1)
    digest = _digest_shown(result.stdout)
    assert f"digest {digest}" in result.stdout  # shown with the diffs
    assert f'codeloop approve {run_id} --digest {digest} -m "LGTM" --store {store}' in \
        result.stdout
    assert f"codeloop reject {run_id} -m" in result.stdout
    return run_id, digest


def test_no_input_stops_at_approval_showing_the_diff(tmp_path, ws, store):
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    before = _tree(ws)
    result = _cli("review", "calc.py", "-r", REQUEST, "-w", str(ws), "--no-input",
                  "--model", model, "--store", store)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "calc.py  +2 -0" in out
    assert '+        raise ValueError("division by zero")' in out
    assert "Reviewer: approved" in out and "awaiting approval" in out
    assert _tree(ws) == before
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.status == "awaiting_approval" and run.input["model"] == model


def test_without_a_terminal_it_never_asks(tmp_path, ws, store):
    # No --no-input, but stdin is no terminal: the run stops at the approval all the same.
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    done = CliRunner().invoke(_app(), ["review", "calc.py", "-r", REQUEST, "-w", str(ws),
                                       "--model", model, "--store", store],
                              input="approve\nLGTM\n")
    assert done.exit_code == 0, done.output
    assert "Apply these changes?" not in done.stdout
    assert "Waiting for approval: review-" in done.stdout
    assert (ws / "calc.py").read_text() == DIV


def test_another_process_approves_without_loading_the_model(tmp_path, ws, store):
    run_id, digest = _waiting_run(tmp_path, ws, store)
    (tmp_path / "first.yaml").unlink()  # the run's model is gone: approving needs none
    # no digest: the exact pending diff and its digest are shown, nothing is written
    unnamed = _process("approve", run_id, "--store", store)
    assert unnamed.returncode == 2 and unnamed.stderr.count("\n") == 1
    assert '+        raise ValueError("division by zero")' in unnamed.stdout
    assert f"digest {digest}" in unnamed.stdout
    assert f"codeloop approve {run_id} --digest {digest}" in unnamed.stderr
    assert (ws / "calc.py").read_text() == DIV
    done = _process("approve", run_id, "--digest", digest, "-m", "ship it", "--store", store)
    assert done.returncode == 0, done.stderr
    assert "applied" in done.stdout and "wrote calc.py" in done.stdout
    assert (ws / "calc.py").read_text() == GUARDED
    history = json.loads((ws / ".ai_context.json").read_text())["workflow_history"]
    assert [(h["status"], h["artifacts"]) for h in history] == [("applied", ["calc.py"])]
    assert "ship it" in history[0]["notes"]
    again = _process("approve", run_id, "--store", store)
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert f"run {run_id} is succeeded, not waiting for approval" in again.stderr


def test_a_rejection_is_refined_and_comes_back_for_approval(tmp_path, ws, store):
    run_id, first_digest = _waiting_run(tmp_path, ws, store)
    second = _script(tmp_path, "second.yaml", [  # the rejection's model: --model
        {"match": "add a docstring", "reply": DOC_EDIT}, {"match": REVIEWER, **verdict(True)}])
    done = _cli("reject", run_id, "-m", "add a docstring", "--model", second, "--store", store)
    assert done.exit_code == 0, done.output
    assert f"Waiting for approval: {run_id}" in done.stdout
    assert '+    """a / b; ValueError when b is 0."""' in done.stdout
    assert (ws / "calc.py").read_text() == DIV  # still nothing written
    digest = _digest_shown(done.stdout)
    stale = _cli("approve", run_id, "--digest", first_digest, "--store", store)
    assert stale.exit_code == 2 and "not the one you saw" in stale.stderr
    assert (ws / "calc.py").read_text() == DIV
    done = _cli("approve", run_id, "--digest", digest, "--store", store)
    assert done.exit_code == 0, done.output
    text = (ws / "calc.py").read_text()
    assert '"""a / b; ValueError when b is 0."""' in text and "raise ValueError" in text


def test_approve_flag_applies_and_json_is_alone_on_stdout(tmp_path, ws, store):
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    done = _cli("review", "calc.py", "-r", REQUEST, "-w", str(ws), "--approve", "--json",
                "--model", model, "--store", store)
    assert done.exit_code == 0, done.output
    outcome = json.loads(done.stdout)  # nothing else on stdout
    assert outcome["status"] == "applied" and outcome["written"] == ["calc.py"]
    assert outcome["workflow_type"] == "review" and outcome["tokens"]["total"] > 0
    assert [r["mode"] for r in outcome["refinements"]] == ["diff"]
    assert "▶ reviewer" in done.stderr  # the live view went to stderr
    assert (ws / "calc.py").read_text() == GUARDED


def test_json_at_the_approval_reports_the_pending_diffs(tmp_path, ws, store):
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    done = _cli("review", "calc.py", "-r", REQUEST, "-w", str(ws), "--json",
                "--model", model, "--store", store)
    assert done.exit_code == 0, done.output
    outcome = json.loads(done.stdout)
    assert outcome["status"] == "awaiting_approval"
    (diff,) = outcome["pending_diffs"]
    assert diff["file_path"] == "calc.py" and diff["modified_content"] == GUARDED
    assert f"codeloop approve {outcome['run_id']}" in done.stderr


def test_debug_prints_each_nodes_log_on_one_line(tmp_path, ws, store):
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    result = _cli("review", "calc.py", "-r", REQUEST, "-w", str(ws), "--no-input", "--debug",
                  "--model", model, "--store", store)
    assert result.exit_code == 0, result.output
    lines = re.findall(r"^\[\d\d:\d\d:\d\d\] (\w+)/\w+ (\S+) .*$", result.stdout, re.MULTILINE)
    nodes = {node for node, _icon in lines}
    assert {"context_loader", "supervisor", "security_gate", "reviewer", "refiner"} <= nodes
    assert re.search(r"^\[\d\d:\d\d:\d\d\] refiner/\w+ ✅ .*\(\d[\d,]* tokens\)$",
                     result.stdout, re.MULTILINE)


def test_a_review_that_never_passes_exits_1(tmp_path, ws, store):
    # The reviewer always finds a problem; the refiner's edits apply but never satisfy it.
    model = _script(tmp_path, "never.yaml", [
        {"match": REVIEWER, **verdict(False, "still wrong")},
        {"match": REFINER, "reply": GUARD_EDIT, "times": 1},
        {"match": REFINER, "reply": DOC_EDIT, "times": 1},
        {"match": REFINER, "reply": "no edit"}])
    before = _tree(ws)
    result = _cli("review", "calc.py", "-r", REQUEST, "-w", str(ws), "--no-input",
                  "--model", model, "--store", store)
    assert result.exit_code == 1, result.output
    assert "failed" in result.stdout and "Max iterations (3) reached" in result.stdout
    assert _tree(ws) == before


KILLER = """
import os, signal, sys
from pathlib import Path
from codeloop.config import load_config
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, start_review
from codeloop.store import RunStore

class DiesInTheRefiner(ScriptedLLM):
    # the process is killed (SIGKILL: no cleanup at all) when the refiner asks the model
    def _generate(self, request):
        if "Reply with every file you change" in request.messages[-1].content:
            os.kill(os.getpid(), signal.SIGKILL)
        return super()._generate(request)

ws, store, spec = sys.argv[1:4]
llm = DiesInTheRefiner.from_file(spec.split(":", 1)[1], name=spec)
req = ReviewRequest(workspace=Path(ws), files=["calc.py"], request=sys.argv[4], model=spec)
start_review(req, llm, RunStore(store), load_config().settings,
             on_run_id=lambda rid: print(rid, flush=True))
"""


def test_an_interrupted_review_goes_on_with_resume(tmp_path, ws, store):
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    killed = subprocess.run([sys.executable, "-c", KILLER, str(ws), store, model, REQUEST],
                            capture_output=True, text=True, timeout=120, check=False)
    assert killed.returncode == -9, killed.stderr
    run_id = killed.stdout.split()[0]
    listed = _cli("runs", "--json", "--store", store)
    assert {r["id"]: r["status"] for r in json.loads(listed.stdout)} == {
        run_id: "interrupted"}
    refused = _cli("approve", run_id, "--store", store)
    assert refused.exit_code == 2
    assert f"codeloop review --resume {run_id}" in refused.stderr
    rest = _script(tmp_path, "rest.yaml", FIRST_ROUND)
    result = _cli("review", "--resume", run_id, "--no-input", "--model", rest,
                  "--store", store)
    assert result.exit_code == 0, result.output
    assert f"Waiting for approval: {run_id}" in result.stdout
    assert "+2 -0" in result.stdout
    again = _cli("review", "--resume", run_id, "--store", store)
    assert again.exit_code == 2 and "not interrupted" in again.stderr
    assert "codeloop approve" in again.stderr
    mixed = _cli("review", "calc.py", "--resume", run_id, "--store", store)
    assert mixed.exit_code == 2 and "give no targets" in mixed.stderr


def test_a_commits_changes_are_reviewed_with_git(tmp_path, ws, store):
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    (ws / "calc.py").write_text("def div(a, b):\n    return a // b\n")
    (ws / "other.py").write_text("X = 1\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=ws, check=True, env=env)
    (ws / "calc.py").write_text(DIV)
    subprocess.run(["git", "commit", "-qam", "true division"], cwd=ws, check=True, env=env)
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    result = _cli("review", "--git", "HEAD", "-w", str(ws), "--no-input", "--model", model,
                  "--store", store)  # the last commit's own change: calc.py, not other.py
    assert result.exit_code == 0, result.output
    assert "1 file(s) to change (review)" in result.stdout and "calc.py  +2 -0" in result.stdout
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.input["git_rev"] == "HEAD" and run.status == "awaiting_approval"


def test_files_named_from_the_current_directory(tmp_path, ws, store, monkeypatch):
    # `codeloop review app/calc.py -w app`, typed from app's parent: the file is found.
    monkeypatch.chdir(tmp_path)
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    result = _cli("review", "app/calc.py", "-r", REQUEST, "-w", "app", "--no-input",
                  "--model", model, "--store", store)
    assert result.exit_code == 0, result.output
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.input["files"] == ["calc.py"]
        assert run.input["workspace"] == str(ws.resolve())


def test_a_stopped_review_is_recorded_interrupted_and_says_how_to_go_on(tmp_path, ws, store):
    # The workspace's test sleeps, so the run is busy (in the sandbox) when SIGTERM comes.
    (ws / "test_calc.py").write_text("import time\nfrom calc import div\n\n\n"
                                     "def test_div():\n    time.sleep(30)\n"
                                     "    assert div(4, 2) == 2\n")
    model = _script(tmp_path, "first.yaml", FIRST_ROUND)
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        process = subprocess.Popen([CODELOOP, "review", "calc.py", "-r", REQUEST, "-w",
                                    str(ws), "--model", model, "--store", store],
                                   stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while "▶ context_loader" not in out.read_text():
                assert time.monotonic() < deadline and process.poll() is None, out.read_text()
                time.sleep(0.1)
            time.sleep(0.5)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 130, out.read_text()
        finally:
            if process.poll() is None:
                process.kill()
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.status == "interrupted"
    assert f"interrupted: continue with `codeloop review --resume {run.id}`" in out.read_text()
