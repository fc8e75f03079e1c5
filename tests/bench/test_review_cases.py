"""The review benchmark's cases are sound, with no model: every starting workspace fails its
hidden tests (and shows each planted finding its check names), the reference fix passes
both, and the scoring cannot be fooled by a change that only silences the check, exits early
or brings its own pytest configuration."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[2] / "benchmarks" / "review_cases.py"


def _load():
    spec = importlib.util.spec_from_file_location("review_cases", CASES)
    module = importlib.util.module_from_spec(spec)
    sys.modules["review_cases"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


rc = _load()
ALL = rc.load_cases()


def test_at_least_twelve_cases_each_of_its_own_kind():
    assert len(ALL) >= 12
    assert len({case.kind for case in ALL}) == len(ALL)
    with_static_check = [case.name for case in ALL if case.absent]
    assert len(with_static_check) >= 8, with_static_check


@pytest.mark.parametrize("case", ALL, ids=lambda c: c.name)
def test_case_is_well_formed(case):
    workspace = case.folder / "workspace"
    assert case.request and case.problem and case.files
    for name in case.files:
        assert (workspace / name).is_file(), name
    reference = {p.relative_to(case.folder / "reference").as_posix()
                 for p in (case.folder / "reference").rglob("*.py")}
    assert reference and reference <= set(case.files), "the fix touches only reviewed files"
    assert case.hidden_tests
    for name in case.hidden_tests:
        assert name.startswith("test_hidden_") and not (workspace / name).exists()
    for item in case.absent:
        assert item["file"] in case.files
        assert len({"finding", "ruff", "regex"} & item.keys()) == 1, item


@pytest.mark.parametrize("case", ALL, ids=lambda c: c.name)
def test_original_fails_and_reference_passes(case, tmp_path):
    original = rc.score(case, rc.materialise(case, tmp_path / "original"))
    assert not original.hidden.passed, original.hidden.summary
    assert "failed" in original.hidden.summary
    # every check item names a finding the starting code really has
    assert len(original.violations) == len(case.absent), original.violations
    assert not original.fixed

    fixed = rc.score(case, rc.materialise(case, tmp_path / "fixed", with_reference=True))
    assert fixed.hidden.passed, fixed.hidden.summary
    assert fixed.violations == ()
    assert fixed.fixed


def test_silencing_the_check_without_the_behaviour_is_not_fixed(tmp_path):
    [case] = rc.load_cases(["hardcoded_secret"])
    workspace = rc.materialise(case, tmp_path / "ws")
    # The literal is gone, but the key is read once at import: rotating it does nothing.
    (workspace / "payments.py").write_text(
        'import os\n\nAPI_URL = "https://api.payments.example.com/v1"\n'
        'API_KEY = os.environ.get("PAYMENTS_API_KEY", "")\n\n\n'
        "def auth_headers():\n"
        '    return {"Authorization": f"Bearer {API_KEY}", "Accept": "application/json"}\n')
    result = rc.score(case, workspace)
    assert result.violations == () and not result.hidden.passed and not result.fixed


def test_an_early_exit_or_own_pytest_config_does_not_pass(tmp_path):
    [case] = rc.load_cases(["off_by_one"])
    workspace = rc.materialise(case, tmp_path / "exit")
    module = workspace / "paging.py"
    module.write_text("import os\nos._exit(0)\n" + module.read_text())
    assert not rc.run_hidden(case, workspace).passed

    workspace = rc.materialise(case, tmp_path / "config")
    (workspace / "pytest.ini").write_text("[pytest]\naddopts = -k nothing_matches\n")
    (workspace / "conftest.py").write_text(
        "import pytest\n\n@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_collection_modifyitems(items):\n    items.clear()\n")
    result = rc.run_hidden(case, workspace)
    assert not result.passed and "3 failed" in result.summary


def test_introduced_findings_and_changed_files(tmp_path):
    [case] = rc.load_cases(["sql_injection"])
    original = rc.materialise(case, tmp_path / "original")
    fixed = rc.materialise(case, tmp_path / "fixed", with_reference=True)
    before = rc.serious_findings(original, list(case.files))
    after = rc.serious_findings(fixed, list(case.files))
    assert before == Counter({("users.py", "B608"): 1}) and after == Counter()
    assert rc.introduced_findings(before, after) == []
    assert rc.introduced_findings(after, before) == ["users.py: B608"]
    assert rc.changed_files(case, original) == []
    (fixed / "notes.txt").write_text("new")
    assert rc.changed_files(case, fixed) == ["notes.txt", "users.py"]


def test_unknown_case_names_are_refused():
    with pytest.raises(ValueError, match="unknown case"):
        rc.load_cases(["sql_injection", "no_such_case"])


@pytest.fixture
def bench(monkeypatch):
    """benchmarks/review_bench.py, loaded as its script would run (its folder on sys.path)."""
    monkeypatch.syspath_prepend(str(CASES.parent))
    monkeypatch.setitem(sys.modules, "review_cases", rc)
    spec = importlib.util.spec_from_file_location("review_bench", CASES.parent / "review_bench.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "review_bench", module)
    spec.loader.exec_module(module)
    return module


def _result(bench, case, mode, *, fixed, refinements, tokens, introduced=()):
    return bench.CaseResult(
        case=case, kind=f"kind_{case}", mode=mode, fixed=fixed, hidden_passed=fixed,
        hidden_summary="3 passed" if fixed else "1 failed, 2 passed",
        violations=[] if fixed else ["B608 in users.py line 22"], checks=1,
        status="applied", workflow_type="review", exit_code=0, introduced=list(introduced),
        changed=["users.py"], tokens=tokens,
        refinements=[{"iteration": i + 1, "mode": mode, "prompt_tokens": p,
                      "completion_tokens": c, "edits_failed": int(i == 1)}
                     for i, (p, c) in enumerate(refinements)],
        seconds=12.0)


def test_report_puts_the_refiners_side_by_side(bench):
    results = [
        _result(bench, "a", "diff", fixed=True, refinements=[(300, 60), (320, 40)], tokens=900),
        _result(bench, "a", "full", fixed=True, refinements=[(300, 300)], tokens=1200),
        _result(bench, "b", "diff", fixed=False, refinements=[], tokens=400,
                introduced=["users.py: B602"]),
    ]
    diff = bench.mode_summary([r for r in results if r.mode == "diff"])
    assert diff["fixed"] == 1 and diff["cases"] == 2 and diff["introduced"] == 1
    assert diff["refine_calls"] == 2 and diff["refine_tokens_per_call"] == 360
    assert (diff["refine_prompt_per_call"], diff["refine_completion_per_call"]) == (310, 50)
    text = bench.markdown(results, {"model": "m", "command": "review_bench.py --model m",
                                    "commit": "abc", "date": "d", "machine": "x"})
    assert "`review_bench.py --model m`" in text and "commit: abc" in text
    assert "| a | kind_a | **yes** | applied | 900 | 2 / 360 | 0 | 12 | **yes** |" in text
    assert "| b | kind_b | no | applied | 400 | 0 / - | 1 | 12 |  |" in text
    assert "| diff | 1/2 | 1 | 1 | 1 | 1300 | 2 | 360 (310 + 50) | 1 | 12.0 |" in text
    assert "| full | 1/1 | 1 | 1 | 0 | 1200 | 1 | 600 (300 + 300) | 0 | 12.0 |" in text


def test_bench_refuses_unknown_cases(bench, capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--model", "scripted:x.yaml", "--label", "t", "--cases", "nope"])
    assert stop.value.code == 2 and "unknown case(s): nope" in capsys.readouterr().err


REVIEW_SAYS_FIX = {"approved": False, "suggestions": [], "issues": [
    "paging.py line 11: page 1 skips the first items; start must be (number - 1) * size"]}
REVIEW_APPROVES = {"approved": True, "issues": [], "suggestions": []}
FIXED_PAGING = (CASES.parent / "review_tasks" / "off_by_one" / "reference" / "paging.py")


def _script(tmp_path, refiner_reply: str, *, approve_when: str = "",
            name: str = "script.yaml") -> str:
    """The refiner always sends `refiner_reply`; the reviewer approves the code once it
    contains `approve_when` (a regex), and asks for the fix before. Keyed on the prompts'
    content, not their order, so the engine may route as it likes."""
    import yaml

    rules = [{"match": "Reply with every file you change", "reply": refiner_reply},
             {"match": approve_when or ".", "json": REVIEW_APPROVES},
             {"match": ".", "json": REVIEW_SAYS_FIX}]
    path = tmp_path / name
    path.write_text(yaml.safe_dump(rules))
    return f"scripted:{path}"


def test_a_run_through_the_cli_is_scored_in_both_modes(bench, tmp_path):
    [case] = rc.load_cases(["off_by_one"])
    edit = ("paging.py\n<<<<<<< SEARCH\n    start = number * size\n=======\n"
            "    start = (number - 1) * size\n>>>>>>> REPLACE\n")
    fixed = r"start = \(number - 1\) \* size"
    logs = tmp_path / "logs"
    logs.mkdir()
    diff = bench.run_case(case, "diff", _script(tmp_path, edit, approve_when=fixed),
                          logs=logs, timeout=120)
    assert diff.fixed and diff.status == "applied" and diff.workflow_type == "review"
    assert diff.changed == ["paging.py"] and diff.introduced == [] and diff.exit_code == 0
    assert len(diff.refinements) == 1 and diff.refinements[0]["mode"] == "diff"
    assert diff.refine_tokens[0] > 0 and diff.tokens >= diff.refine_tokens[0]
    assert json.loads((logs / "off_by_one.diff.json").read_text())["status"] == "applied"
    assert "refinement 1 (diff)" in (logs / "off_by_one.diff.log").read_text()
    events = [json.loads(line) for line in
              (logs / "off_by_one.diff.events.jsonl").read_text().splitlines()]
    assert any(e["type"] == "diff" and e["path"] == "paging.py" for e in events)

    whole = f"FILE: paging.py\n```python\n{FIXED_PAGING.read_text()}```\n"
    full = bench.run_case(case, "full", _script(tmp_path, whole, approve_when=fixed,
                                                name="full.yaml"), timeout=120)
    assert full.fixed and [r["mode"] for r in full.refinements] == ["full"]
    # the whole file costs more completion tokens than the one-line edit
    assert full.refinements[0]["completion_tokens"] > diff.refinements[0]["completion_tokens"]


def test_an_unchanged_workspace_is_not_fixed(bench, tmp_path):
    [case] = rc.load_cases(["sql_injection"])
    result = bench.run_case(case, "diff", _script(tmp_path, "no edits"), timeout=120)
    assert not result.fixed and result.changed == []
    assert result.violations == ["B608 in users.py line 22"]


def test_the_model_lock_is_held_for_the_run_only(bench, tmp_path):
    import fcntl

    lock = tmp_path / "model.lock"

    def free() -> bool:
        with lock.open("a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(other, fcntl.LOCK_UN)
            return True

    with bench.model_lock(lock):
        assert not free()
    assert free()
    with bench.model_lock(None):
        assert free()
