"""Attacks through the agent's tools and the host-side quality tools: files the host would run,
secrets in .git, model-supplied text that makes the host work for hours, and linters that ran
the workspace's own startup hooks. Each test failed before its fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codeloop.llm.scripted import ScriptedLLM
from codeloop.quality.metrics import compute_metrics
from codeloop.quality.secret_patterns import find_secrets
from codeloop.solve.runner import solve_task
from codeloop.solve.state import CORRECT
from codeloop.solve.tasks import Task
from codeloop.tools import ALL_TOOLS, Toolbox, Workspace

TOKEN = "ghp_" + "A1b2" * 9
DEEP_SUM = " + ".join(["a", "b"] + ["0"] * 1_498)  # 1,500 terms: radon recursed past the limit


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def box(ws):
    return Toolbox(Workspace.at(ws), list(ALL_TOOLS))


def _in_subprocess(code: str, timeout: float, cwd: Path, python: str = sys.executable) -> str:
    """Run `code` in a fresh interpreter: a tool that spins in C (a regex) cannot be stopped
    from a thread, but a process can be timed out. Returns its stdout."""
    try:
        done = subprocess.run([python, "-c", textwrap.dedent(code)], cwd=cwd, timeout=timeout,
                              capture_output=True, text=True, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the tool was still working after {timeout:.0f}s")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# ---- finding 3: nothing the host runs is written by a tool -------------------------------------
@pytest.mark.parametrize("path", [".venv/lib/python3.11/site-packages/x.pth", "codeloop.toml"])
def test_write_file_refuses_what_the_host_would_run_or_obey(ws, box, path):
    (ws / ".venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    outcome = box.run("write_file", {"path": path,
                                     "content": "import os; os.system('touch /tmp/pwned')\n"})
    assert not outcome.ok
    assert outcome.output.startswith("Error: refused") and "never written" in outcome.output
    assert not (ws / path).exists()


# ---- finding 4: no secrets out of .git ---------------------------------------------------------
def test_git_metadata_is_neither_read_nor_listed_nor_searched(ws, box):
    for git_dir in (ws / ".git", ws / "libs" / "vendored" / ".git"):
        git_dir.mkdir(parents=True)
        (git_dir / "config").write_text(
            f'[remote "origin"]\n\turl = https://x:{TOKEN}@github.com/o/r\n'
            f'[http]\n\textraheader = "AUTHORIZATION: bearer {TOKEN}"\n')
    (ws / "main.py").write_text("print('hi')\n")

    for path in (".git/config", "libs/vendored/.git/config"):
        outcome = box.run("read_file", {"path": path})
        assert not outcome.ok and TOKEN not in outcome.output
    grep = box.run("grep_search", {"pattern": "ghp_", "file_pattern": "*"})
    assert grep.ok and TOKEN not in grep.output and "No matches" in grep.output
    listing = box.run("list_files", {"path": "."})
    assert listing.ok and ".git" not in listing.output and "main.py" in listing.output
    inside = box.run("list_files", {"path": "libs/vendored/.git"})
    assert not inside.ok and "config" not in inside.output


# ---- finding 5: bounded work on model-controlled text ------------------------------------------
def test_grep_search_with_a_catastrophic_regex_returns_at_once(ws):
    (ws / "data.py").write_text("x = '" + "a" * 40 + "!'\n" * 200)
    out = _in_subprocess(f"""
        from codeloop.tools import ALL_TOOLS, Toolbox, Workspace
        box = Toolbox(Workspace.at({str(ws)!r}), list(ALL_TOOLS))
        print(box.run("grep_search", {{"pattern": "(a+)+$", "file_pattern": "*"}}).output)
        """, timeout=20, cwd=ws)
    assert "No matches" in out


def test_grep_search_refuses_what_re2_cannot_run_with_a_clear_error(box, ws):
    (ws / "m.py").write_text("aa = 1\n")
    for pattern in (r"(a)\1", r"foo(?=bar)"):
        outcome = box.run("grep_search", {"pattern": pattern})
        assert not outcome.ok
        assert "RE2" in outcome.output and "backreferences" in outcome.output
    literal = box.run("grep_search", {"pattern": "aa = 1 ("})  # not a regex: searched as text
    assert literal.ok


def test_edit_file_on_a_repetitive_file_answers_in_bounded_time(ws):
    # difflib's closest-match scoring took ~6 hours of CPU on a file like this one.
    (ws / "gen.py").write_text("value = compute(value)\n" * 60_000)
    old_text = "value = compute(value)\n" * 1_500 + "value = compute(other)\n"
    started = time.monotonic()
    out = _in_subprocess(f"""
        import json
        from codeloop.tools import ALL_TOOLS, Toolbox, Workspace
        box = Toolbox(Workspace.at({str(ws)!r}), list(ALL_TOOLS))
        outcome = box.run("edit_file", {{"path": "gen.py", "old_text": {old_text!r},
                                         "new_text": "pass\\n"}})
        print(json.dumps([outcome.ok, outcome.output[:300]]))
        """, timeout=30, cwd=ws)
    ok, output = json.loads(out)
    assert not ok and "no change made" in output
    assert time.monotonic() - started < 15
    assert (ws / "gen.py").read_text() == "value = compute(value)\n" * 60_000


def test_deeply_nested_expression_degrades_metrics_instead_of_raising():
    code = f"def add(a, b):\n    return {DEEP_SUM}\n"
    metrics = compute_metrics(code)  # raised RecursionError before
    assert metrics.unavailable == "metrics unavailable: expression too deeply nested"
    assert metrics.syntax_error is None and metrics.loc == 2
    assert "too deeply nested" in metrics.summary()
    assert metrics.table_rows() == [("Metrics", metrics.unavailable)]


def test_solve_review_stage_survives_a_deeply_nested_candidate():
    # The pipeline's review computes metrics on the candidate: `codeloop solve` died here
    # with a RecursionError traceback.
    task = Task(task_id="add", signature="def add(a: int, b: int) -> int",
                docstring="Return the sum of a and b.", examples="add(2, 2) == 4")
    reply = f"```python\ndef add(a: int, b: int) -> int:\n    return {DEEP_SUM}\n```"
    result = solve_task(task, ScriptedLLM([reply] * 8))
    assert result.verdict == CORRECT
    assert "too deeply nested" in result.quality_metrics["unavailable"]


@pytest.mark.parametrize("word", ["token", "sk-"])
def test_secret_scan_of_one_long_word_is_linear(word):
    # `\w*(?:token|...)\w*` and the key pattern's lookaheads backtracked quadratically:
    # this 60 kB line took 8-20 s before (a 1 MB one would take hours).
    text = "x = " + word * (60_000 // len(word)) + "\n"
    started = time.monotonic()
    assert find_secrets(text) == []
    assert time.monotonic() - started < 2


# ---- finding 6: host linters run nothing from the workspace ------------------------------------
def _library_paths_pth() -> str:
    """Lines for a .pth that lets a bare venv import codeloop and its linters from ours."""
    return "\n".join(p for p in sys.path if p and os.path.isdir(p)
                     and ("site-packages" in p or p.endswith("src"))) + "\n"


def test_lint_file_never_runs_the_workspace_venv_startup_hooks(ws, tmp_path):
    # codeloop installed in a venv inside the workspace: `python -I -m pylint` still ran the
    # venv's .pth files. A .pth there records the pid of every interpreter that starts.
    venv = ws / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "bridge.pth").write_text(_library_paths_pth())
    marker = tmp_path / "started.txt"
    (site / "zz_marker.pth").write_text(
        f"import os; open({str(marker)!r}, 'a').write(str(os.getpid()) + '\\n')\n")
    (ws / "m.py").write_text("import os\n\n\ndef f(x):\n    return x\n")

    out = _in_subprocess("""
        import os
        from codeloop.tools import ALL_TOOLS, Toolbox, Workspace
        box = Toolbox(Workspace.at("."), list(ALL_TOOLS))
        outcome = box.run("lint_file", {"path": "m.py"})
        print(os.getpid())
        print(outcome.output)
        """, timeout=60, cwd=ws, python=str(venv / "bin" / "python"))
    host_pid, report = out.split("\n", 1)
    assert "Pylint Score:" in report and "n/a" not in report, report
    assert "F401" in report and "Tool errors" not in report, report
    # (the host itself ran it at its own start, maybe twice: a venv's lib64 links to lib)
    started = set(marker.read_text().split())
    assert started == {host_pid}, f"linters ran the workspace's .pth: pids {started}"
