"""benchmarks/peers/build_peers.py with no model: gpt-engineer's prompt holds every task of a
graph with its contract and nothing of the hidden acceptance tests, and a project is scored
exactly as build_bench scores codeloop's (the scaffold alone passes none; the reference all)."""

from __future__ import annotations

import json
import shutil

import pytest
from bench_modules import load_peers_script


@pytest.fixture
def bp(monkeypatch):
    return load_peers_script(monkeypatch, "build_peers")


@pytest.mark.parametrize("graph", ["bookmarks", "inventory", "notes", "shortener"])
def test_the_prompt_holds_every_task_and_nothing_of_the_hidden_tests(bp, tmp_path, graph):
    folder = bp.build_bench.GRAPHS / graph
    root = bp.build_bench.scaffold_tree("python-api", tmp_path / graph)
    prompt = bp.prompt_text(folder, root)
    for task in json.loads((folder / "tasks.json").read_text())["tasks"]:
        assert f"Task {task['id']}" in prompt and task["description"] in prompt
    assert "app/main.py" in prompt  # the scaffold, as codeloop's build starts from it
    hidden = [line.strip() for path in bp.build_bench.acceptance_files(folder)
              for line in path.read_text().splitlines()
              if line.strip().startswith(("assert", "def test"))]
    assert hidden and not [line for line in hidden if line in prompt]


def test_bookmarks_contracts_say_what_each_task_builds(bp, tmp_path):
    folder = bp.build_bench.GRAPHS / "bookmarks"
    prompt = bp.prompt_text(folder, bp.build_bench.scaffold_tree("python-api", tmp_path / "b"))
    assert "It builds app.models (BookmarkIn, Bookmark); it builds no HTTP endpoint." in prompt
    assert "with the endpoints POST /bookmarks, GET /bookmarks" in prompt


def test_a_project_is_scored_as_codeloops_build_is(bp, tmp_path):
    folder = bp.build_bench.GRAPHS / "notes"
    bare = bp.build_bench.scaffold_tree("python-api", tmp_path / "bare")
    scored = bp.build_bench.score_tree(bare, folder)
    assert scored["acceptance_passed"] == 0 and scored["acceptance_total"] > 0
    done = tmp_path / "done"
    shutil.copytree(bare, done)
    shutil.copytree(folder / "reference", done, dirs_exist_ok=True)
    assert bp.build_bench.score_tree(done, folder)["acceptance_passed"] == \
        scored["acceptance_total"]
