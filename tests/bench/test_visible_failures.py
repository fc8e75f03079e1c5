"""benchmarks/visible_failures.py sorts a run's failures by what the task's own examples show."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "visible_failures.py"


@pytest.fixture(scope="module")
def visible():
    spec = importlib.util.spec_from_file_location("visible_failures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _record(task_id: str, passed: bool, reply: str) -> str:
    return json.dumps({"task_id": task_id, "passed": passed, "outcome": "x", "reason": "x",
                       "reply": reply}) + "\n"


def test_failures_are_caught_missed_or_without_examples(visible, humaneval, tmp_path):
    he0, he83 = humaneval["HumanEval/0"], humaneval["HumanEval/83"]
    right_0 = he0.prompt + he0.reference  # passes its docstring examples
    wrong_0 = he0.prompt + "    return True\n"  # has_close_elements([1.0, 2.0, 3.0], 0.5) is False
    (tmp_path / "run.json").write_text(json.dumps({"dataset": "humaneval"}))
    (tmp_path / "results.jsonl").write_text(
        _record("HumanEval/0", False, wrong_0)
        + _record("HumanEval/2", True, "irrelevant: passed records are skipped")
        + _record("HumanEval/83", False, he83.prompt + "    return 0\n"))
    groups = visible.classify(tmp_path, timeout=10)
    assert groups == {"caught": ["HumanEval/0"], "missed": [], "no examples": ["HumanEval/83"]}

    (tmp_path / "results.jsonl").write_text(_record("HumanEval/0", False, right_0))
    assert visible.classify(tmp_path, timeout=10)["missed"] == ["HumanEval/0"]
