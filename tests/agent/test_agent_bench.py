"""The agent benchmark's scoring: a correct solution passes its hidden tests, doing nothing
fails them, and every task's tests fail on its starting workspace."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from agent_replies import act, finish, scripted

from codeloop.jobs.react.state import AgentLimits

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "agent_bench.py"
FIZZ = ("def fizzbuzz(n):\n    out = []\n    for i in range(1, n + 1):\n"
        "        out.append('FizzBuzz' if i % 15 == 0 else 'Fizz' if i % 3 == 0 else "
        "'Buzz' if i % 5 == 0 else str(i))\n    return out\n")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("agent_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_bench"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("agent_bench", None)


def test_correct_solution_passes_and_no_change_fails(bench, tmp_path):
    [(name, spec, folder)] = bench.load_tasks(["create_fizzbuzz"])
    solved = scripted(act("write_file", path="fizzbuzz.py", content=FIZZ,
                          start_line=None, end_line=None), finish("done"))
    transcript = tmp_path / "create_fizzbuzz.single.jsonl"
    result = bench.run_task(solved, name, spec, folder, "single", AgentLimits(), transcript,
                            context_first=False)
    assert result.passed and result.status == "finished" and result.steps == 1
    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [(c["tool"], c["arguments"]["path"]) for c in calls] == [("write_file", "fizzbuzz.py")]
    idle = bench.run_task(scripted(finish("nothing")), name, spec, folder, "single",
                          AgentLimits())
    assert not idle.passed


TASK_NAMES = sorted(p.name for p in (BENCH.parent / "agent_tasks").iterdir() if p.is_dir())


def test_suite_has_at_least_ten_tasks(bench):
    assert len(bench.load_tasks(None)) >= 10 and len(TASK_NAMES) >= 10


# One test per task: each gets the suite's per-test time budget (the whole suite in one test
# ran past it on a shared 2-core machine) and a failure names its task.
@pytest.mark.parametrize("task_name", TASK_NAMES)
def test_every_task_starts_failing(bench, task_name):
    [(name, spec, folder)] = bench.load_tasks([task_name])
    result = bench.run_task(scripted(finish("nothing")), name, spec, folder,
                            "single", AgentLimits())
    assert not result.passed, name


@pytest.mark.ray
def test_the_suite_runs_on_a_ray_cluster_and_only_the_driver_writes(tmp_path):
    """`--executor ray`: the task travels in the unit, a worker process runs it, the result
    and the transcript come back and are written here."""
    import subprocess

    if not __import__("os").environ.get("CI"):
        pytest.importorskip("ray")
    from agent_replies import script

    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script(
        act("write_file", path="fizzbuzz.py", content=FIZZ, start_line=None, end_line=None),
        finish("done"))))
    out = tmp_path / "results.json"
    run = subprocess.run(
        [sys.executable, str(BENCH), "--model", f"scripted:{script_file}", "--mode", "tools",
         "--tasks", "create_fizzbuzz", "--executor", "ray", "--workers", "1", "--out",
         str(out)], capture_output=True, text=True, timeout=300, check=False,
        cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "create_fizzbuzz [tools]: PASS" in run.stdout
    [result] = json.loads(out.read_text())
    assert result["passed"] and result["steps"] == 1 and result["mode"] == "tools"
    events = [json.loads(line) for line in
              (tmp_path / "results" / "create_fizzbuzz.tools.jsonl").read_text().splitlines()]
    assert [e["tool"] for e in events if e["type"] == "tool_call"] == ["write_file"]
