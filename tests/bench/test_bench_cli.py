from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
import typer
import yaml
from typer.testing import CliRunner

from codeloop.commands import bench_cmd


@pytest.fixture
def cli():
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """codeloop"""

    bench_cmd.register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def _script(tmp_path, humaneval, ids, wrong=()):
    rules = []
    for task_id in ids:
        p = humaneval[task_id]
        code = (f"def {p.entry_point}(*a):\n    return None" if task_id in wrong
                else p.prompt + p.reference)
        rules.append({"match": f"def {p.entry_point}(", "reply": f"```python\n{code}\n```"})
    path = tmp_path / f"script-{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump(rules))
    return f"scripted:{path}"


def test_run_then_compare(cli, tmp_path, humaneval):
    ids = ["HumanEval/0", "HumanEval/2"]
    a = cli("bench", "humaneval", "--model", _script(tmp_path, humaneval, ids, {"HumanEval/2"}),
            "--ids", ",".join(ids), "--out", str(tmp_path / "a"), "--json")
    assert a.exit_code == 0, a.output
    summary = json.loads(a.stdout[a.stdout.index("{"):])
    assert summary["pass_at_1"] == 50.0 and summary["strategy"] == "oneshot"
    assert summary["options"]["ids"] == ids
    b = cli("bench", "humaneval", "--model", _script(tmp_path, humaneval, ids),
            "--limit", "3", "--ids", "0", "--ids", "2", "--out", str(tmp_path / "b"))
    assert b.exit_code == 0, b.output
    assert "pass@1 100.00%" in b.stdout

    compared = cli("bench", "compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert compared.exit_code == 0, compared.output
    assert "+50.00 pp" in compared.stdout
    assert "only B solved (1): HumanEval/2" in compared.stdout
    as_json = json.loads(cli("bench", "compare", str(tmp_path / "a"), str(tmp_path / "b"),
                             "--json").stdout)
    assert as_json["pass_at_1_diff"] == 50.0 and as_json["only_a"] == []


def test_user_errors_are_one_line_and_exit_2(cli, tmp_path, humaneval):
    bad = tmp_path / "mbpp.json"
    bad.write_text("[{broken")
    result = cli("bench", "mbpp", "--data", str(bad), "--model", "scripted:x.yaml")
    assert result.exit_code == 2 and "not valid JSON" in result.output
    result = cli("bench", "humaneval", "--strategy", "magic")
    assert result.exit_code == 2 and "unknown strategy 'magic'" in result.output
    assert "oneshot" in result.output and "pipeline" in result.output

    model = _script(tmp_path, humaneval, ["HumanEval/0"])
    out = str(tmp_path / "run")
    assert cli("bench", "humaneval", "--model", model, "--limit", "1", "--out", out).exit_code == 0
    again = cli("bench", "humaneval", "--model", model, "--limit", "1", "--out", out)
    assert again.exit_code == 2 and "--resume" in again.output
    resumed = cli("bench", "humaneval", "--model", model, "--limit", "1", "--out", out,
                  "--resume")
    assert resumed.exit_code == 0 and "pass@1 100.00%" in resumed.stdout


def test_samples_per_round_reaches_the_pipeline_and_the_run_record(cli, tmp_path, humaneval):
    ids = ["HumanEval/2"]
    model = _script(tmp_path, humaneval, ids, wrong=set(ids))

    def attempts(*options: str) -> tuple[list[str], dict]:
        out = tmp_path / f"run-{len(options)}"
        result = cli("bench", "humaneval", "--strategy", "pipeline", "--model", model,
                     "--ids", ids[0], "--out", str(out), *options)
        assert result.exit_code == 0, result.output
        record = json.loads((out / "results.jsonl").read_text().splitlines()[0])
        meta = json.loads((out / "run.json").read_text())
        return [a["strategy"] for a in record["extra"]["attempts"]], meta["options"]

    two, options = attempts("--samples-per-round", "2", "--seed", "5")
    assert two.count("sample") > 3
    assert options["samples_per_round"] == 2 and options["seed"] == 5
    default, options = attempts()
    assert default == ["draft", "generation", "sample", "sample", "sample"]
    assert "samples_per_round" not in options
    _, options = attempts("--no-edge-checks")
    assert options["edge_checks"] is False


def test_strategies_are_listed(cli):
    result = cli("bench", "strategies")
    assert result.exit_code == 0
    assert "oneshot" in result.stdout and "pipeline" in result.stdout


def test_sigterm_stops_a_run_like_ctrl_c_with_its_summary_kept(tmp_path, humaneval):
    """A background run is stopped with `kill` (it ignores SIGINT): the finished problems
    and summary.json are kept, and --resume finishes the rest."""
    ids = list(humaneval)[:40]
    model = _script(tmp_path, humaneval, ids)
    out = tmp_path / "run"
    command = [sys.executable, "-m", "codeloop", "bench", "humaneval", "--model", model,
               "--limit", "40", "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.is_file() and results.read_text().count("\n") >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _stdout, stderr = proc.communicate(timeout=60)

    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "--resume" in stderr
    done = results.read_text().count("\n")
    assert 2 <= done < 40
    summary = json.loads((out / "summary.json").read_text())
    assert summary["problems_done"] == summary["passed"] == done
    assert not summary["complete"]

    resumed = subprocess.run(command + ["--resume", "--json"], capture_output=True, text=True,
                             check=False, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    final = json.loads((out / "summary.json").read_text())
    assert final["complete"] and final["problems_done"] == final["passed"] == 40
