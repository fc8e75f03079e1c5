"""The build benchmark's graphs are sound, with no model: every graph loads as `codeloop
build` loads it, its reference project (the scaffold with reference/ over it) passes every
hidden acceptance test, and the scaffold alone passes none. Scored by the benchmark's own
scorer (benchmarks/build_bench.py: the hidden tests in the real sandbox)."""

from __future__ import annotations

import importlib.util
import inspect
import json
import shutil
import sys
from pathlib import Path

import pytest
from build_replies import file_reply, reply_with_tests

from codeloop.build.request import dependency_levels
from codeloop.build.runner import prepare

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "build_bench.py"


def _load():
    spec = importlib.util.spec_from_file_location("build_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_bench"] = module
    spec.loader.exec_module(module)
    return module


bench = _load()
NAMES = bench.graph_names()


def test_at_least_four_graphs_one_with_five_tasks_and_a_chain_of_three(tmp_path):
    assert len(NAMES) >= 4
    shapes = []
    for name in NAMES:
        inputs = prepare(bench.GRAPHS / name / "tasks.json", out_dir=tmp_path / name)
        levels = dependency_levels(inputs.request)
        shapes.append((len(inputs.request.tasks), max(levels.values()) + 1))
    assert any(tasks >= 5 and chain >= 3 for tasks, chain in shapes), shapes


@pytest.mark.parametrize("name", NAMES)
def test_graph_loads_as_build_loads_it(name, tmp_path):
    inputs = prepare(bench.GRAPHS / name / "tasks.json", out_dir=tmp_path / "out")
    assert inputs.stack.name == "python-api"
    assert not (tmp_path / "out").exists()  # prepare writes nothing
    assert bench.acceptance_total(bench.GRAPHS / name) >= 8


@pytest.mark.parametrize("name", NAMES)
def test_reference_passes_every_hidden_test(name, tmp_path):
    folder = bench.GRAPHS / name
    tree = bench.scaffold_tree("python-api", tmp_path / name)
    shutil.copytree(folder / "reference", tree, dirs_exist_ok=True)
    scored = bench.score_tree(tree, folder)
    assert scored["acceptance_passed"] == scored["acceptance_total"], scored


@pytest.mark.parametrize("name", NAMES)
def test_the_scaffold_alone_passes_no_hidden_test(name, tmp_path):
    folder = bench.GRAPHS / name
    scored = bench.score_tree(bench.scaffold_tree("python-api", tmp_path / name), folder)
    assert scored["acceptance_passed"] == 0, scored
    assert scored["acceptance_total"] >= 8


def test_a_half_built_project_scores_in_between(tmp_path):
    """A project with only the models module passes the models' tests and no others: the
    score counts tests, not projects."""
    folder = bench.GRAPHS / "bookmarks"
    tree = bench.scaffold_tree("python-api", tmp_path / "half")
    shutil.copy(folder / "reference" / "app" / "models.py", tree / "app" / "models.py")
    scored = bench.score_tree(tree, folder)
    assert 0 < scored["acceptance_passed"] < scored["acceptance_total"], scored


def test_the_build_never_sees_the_hidden_tests_or_the_reference():
    source = inspect.getsource(bench.run_graph)
    assert '"tasks.json"' in source
    assert "reference" not in source
    for name in NAMES:
        text = (bench.GRAPHS / name / "tasks.json").read_text()
        assert "acceptance" not in text and "reference" not in text


def test_a_build_that_writes_the_reference_scores_every_hidden_test(build):
    """The runner's path end to end on the scripted model: `codeloop build` on the bookmarks
    graph (each task's tests in its scope, then the reference module; the integration
    writes the reference main.py), and main scored by the benchmark's scorer."""

    folder = bench.GRAPHS / "bookmarks"
    reference = {p.name: p.read_text() for p in (folder / "reference" / "app").glob("*.py")}
    tests = {
        "B1": "from app.models import BookmarkIn\n\n\ndef test_tags_default():\n"
              "    assert BookmarkIn(url='http://a.b', title='t').tags == []\n",
        "B2": "from app.models import BookmarkIn\nfrom app.storage import BookmarkStore\n\n\n"
              "def test_add():\n    store = BookmarkStore()\n"
              "    assert store.add(BookmarkIn(url='http://a.b', title='t')).id == 1\n",
        "B3": "from fastapi import FastAPI\nfrom fastapi.testclient import TestClient\n\n"
              "from app.routes import router\n\n\ndef test_post():\n    app = FastAPI()\n"
              "    app.include_router(router)\n    response = TestClient(app).post(\n"
              "        '/bookmarks', json={'url': 'http://a.b', 'title': 't'})\n"
              "    assert response.status_code == 201\n"}
    modules = {"B1": "models.py", "B2": "storage.py", "B3": "routes.py"}
    agents = {f"task:{t}": [reply_with_tests(tests[t]),
                            file_reply((f"app/{modules[t]}", reference[modules[t]]))]
              for t in tests}
    agents["integration"] = [file_reply(("app/main.py", reference["main.py"]))]
    request = json.loads((folder / "tasks.json").read_text())
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final.get("error")
    scored = bench.score_tree(built.out, folder)
    assert scored["acceptance_passed"] == scored["acceptance_total"] == 11, scored


@pytest.mark.attack
def test_a_project_conftest_cannot_pass_the_hidden_tests(tmp_path):
    """Model-written pytest settings and a conftest.py that reports every test passed are
    not read by the scorer: the scaffold still scores 0."""
    folder = bench.GRAPHS / "bookmarks"
    tree = bench.scaffold_tree("python-api", tmp_path / "cheat")
    (tree / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
        "    outcome.get_result().outcome = 'passed'\n")
    (tree / "pytest.ini").write_text("[pytest]\naddopts = -p no:doctest\n")
    scored = bench.score_tree(tree, folder)
    assert scored["acceptance_passed"] == 0, scored
