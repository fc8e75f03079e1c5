"""The agent benchmark's tasks are sound, with no model: for every task with a reference/
solution, the starting workspace fails its test_command once the hidden tests are in, and the
workspace with the reference overlaid passes it. Both are scored the way
benchmarks/agent_bench.py scores an agent's run: the task's own test files restored from
files/, then check/, and test_command in the real sandbox (mode="cow")."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

from codeloop.sandbox import run_command

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "agent_bench.py"


def _load():
    spec = importlib.util.spec_from_file_location("agent_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_bench"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _load()
ALL = bench.load_tasks(None)
WITH_REFERENCE = [task for task in ALL if (task[2] / "reference").is_dir()]


def _materialise(folder: Path, root: Path, *, with_reference: bool) -> Path:
    """The workspace an agent starts from, or (with_reference) one a correct agent leaves."""
    root.mkdir(parents=True)
    bench._copy_files(folder / "files", root)
    if with_reference:
        bench._copy_files(folder / "reference", root)
    return root


def _score(spec: dict, folder: Path, root: Path) -> tuple[bool, str]:
    """(passed, last line of the output), by the benchmark's own scorer where it has one."""
    score = getattr(bench, "score_workspace", None)
    if score is not None:
        return score(root, spec, folder)
    bench._copy_files(folder / "files", root, only=bench._is_test)
    bench._copy_files(folder / "check", root)
    result = run_command(["bash", "-c", spec["test_command"]], workspace=root, mode="cow",
                         timeout=120)
    lines = (result.stdout + result.stderr).strip().splitlines()
    return result.exit_code == 0, lines[-1] if lines else ""


def test_the_suite_has_24_tasks_and_12_with_a_reference():
    assert len(ALL) >= 24
    assert len(WITH_REFERENCE) >= 12
    assert len({name for name, _, _ in ALL}) == len(ALL)


def test_the_benchmark_never_copies_a_reference_into_the_workspace():
    source = inspect.getsource(bench)
    assert set(re.findall(r'folder / "(\w+)"', source)) == {"files", "check"}
    assert "reference" not in source


@pytest.mark.parametrize("task", WITH_REFERENCE, ids=lambda t: t[0])
def test_task_is_well_formed(task):
    name, spec, folder = task
    assert re.fullmatch(r"[a-z][a-z0-9_]*", name)
    assert spec["request"].strip()
    assert spec["test_command"] == "python -m pytest -q -p no:cacheprovider"
    hidden = [p for p in (folder / "check").glob("test_*.py")]
    assert hidden, "hidden tests in check/"
    starting = [p for p in (folder / "files").rglob("*") if p.is_file() and p.name != ".gitkeep"]
    assert 1 <= len(starting) <= 4
    for path in hidden:
        assert not (folder / "files" / path.name).exists()
    reference = [p for p in (folder / "reference").rglob("*") if p.is_file()]
    assert reference
    for path in reference:
        twin = folder / "files" / path.relative_to(folder / "reference")
        assert not twin.exists() or twin.read_bytes() != path.read_bytes(), twin
    local = {p.stem for p in starting + reference + hidden}
    for path in starting + reference + hidden:
        text = path.read_text()
        assert len(text.splitlines()) < 80, path
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            for root in roots:  # plain stdlib (and pytest in tests), or the task's own files
                assert (root in sys.stdlib_module_names or root in local
                        or root == "pytest"), (path.name, root)


@pytest.mark.parametrize("task", WITH_REFERENCE, ids=lambda t: t[0])
def test_start_fails_and_reference_passes(task, tmp_path):
    _, spec, folder = task
    start = _materialise(folder, tmp_path / "start", with_reference=False)
    passed, summary = _score(spec, folder, start)
    assert not passed and re.search(r"\d+ (failed|errors?)\b", summary), summary

    fixed = _materialise(folder, tmp_path / "fixed", with_reference=True)
    passed, summary = _score(spec, folder, fixed)
    assert passed and re.match(r"\d+ passed\b", summary), summary
    assert "failed" not in summary and "error" not in summary, summary


def _written_tests(spec, folder, root: Path, source: str) -> str:
    (root / "test_text.py").write_text(source)
    passed, summary = _score(spec, folder, root)
    assert not passed
    return summary


def test_weak_or_too_few_written_tests_do_not_pass(tmp_path):
    [(_, spec, folder)] = [t for t in WITH_REFERENCE if t[0] == "write_slugify_tests"]
    weak = _materialise(folder, tmp_path / "weak", with_reference=False)
    summary = _written_tests(spec, folder, weak, (
        "from text import slugify\n\n\n"
        "def test_a():\n    assert slugify('abc') == 'abc'\n\n\n"
        "def test_b():\n    assert slugify('x1') == 'x1'\n\n\n"
        "def test_c():\n    assert isinstance(slugify('q'), str)\n"))
    assert summary.startswith("3 failed"), summary  # pass on the code, catch no mutant

    few = _materialise(folder, tmp_path / "few", with_reference=False)
    summary = _written_tests(spec, folder, few, (
        "from text import slugify\n\n\n"
        "def test_all():\n    assert slugify('  Hello, World!  ') == 'hello-world'\n"))
    assert summary.startswith("1 failed"), summary  # catch every mutant, but one test
