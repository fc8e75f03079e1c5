"""A bench summary always covers everything results.jsonl holds (a resumed run with a
smaller --limit does not shrink it), and an unusable --out is one line with exit code 2."""

from __future__ import annotations

import json

import typer
import yaml
from typer.testing import CliRunner

from codeloop.commands import bench_cmd

FIRST_FOUR = ["HumanEval/0", "HumanEval/1", "HumanEval/2", "HumanEval/3"]


def _cli(*args: str):
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """codeloop"""

    bench_cmd.register(app)
    return CliRunner().invoke(app, list(args))


def _model(tmp_path, humaneval) -> str:
    rules = [{"match": f"def {humaneval[t].entry_point}(",
              "reply": f"```python\n{humaneval[t].prompt + humaneval[t].reference}\n```"}
             for t in FIRST_FOUR]
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump(rules))
    return f"scripted:{path}"


def test_resume_with_a_smaller_limit_keeps_the_whole_summary(tmp_path, humaneval):
    out, model = tmp_path / "run", _model(tmp_path, humaneval)
    first = _cli("bench", "humaneval", "--model", model, "--limit", "4", "--out", str(out))
    assert first.exit_code == 0, first.output
    resumed = _cli("bench", "humaneval", "--model", model, "--limit", "2", "--out", str(out),
                   "--resume", "--json")
    assert resumed.exit_code == 0, resumed.output
    summary = json.loads((out / "summary.json").read_text())
    assert [p["task_id"] for p in summary["problems"]] == FIRST_FOUR
    assert summary["problems_done"] == 4 and summary["passed"] == 4 and summary["complete"]
    assert "(4/4)" in (out / "summary.md").read_text()
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4  # nothing was run again


def _assert_one_line(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert any(line.startswith("error:") for line in lines), result.output
    assert "Traceback" not in result.output
    error = next(line for line in lines if line.startswith("error:"))
    for word in words:
        assert word in error, error


def test_out_inside_a_file_is_one_clear_line(tmp_path, humaneval):
    blocker = tmp_path / "blocker"
    blocker.write_text("keep me\n")
    result = _cli("bench", "humaneval", "--model", _model(tmp_path, humaneval), "--limit", "1",
                  "--out", str(blocker / "run"))
    _assert_one_line(result, str(blocker / "run"), "--out")
    assert blocker.read_text() == "keep me\n"


def test_out_where_even_root_cannot_write(tmp_path, humaneval):
    result = _cli("bench", "humaneval", "--model", _model(tmp_path, humaneval), "--limit", "1",
                  "--out", "/proc/codeloop-bench-run")
    _assert_one_line(result, "/proc/codeloop-bench-run", "--out")
