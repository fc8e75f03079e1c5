"""Paths an API request names, attacked: a workspace (or a model file) outside the server's
--root, by absolute path, `..`, a symlink, a sibling with the root's name as prefix, `~`,
NUL; review files that climb out of their workspace. Refused with 403/400 before any run,
and nothing is written outside the root (no run, no `git init`, no file)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import REVIEW_SCRIPT, review_workspace, served, write_script


def _snapshot(directory: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(directory)), p.lstat().st_size)
                  for p in directory.rglob("*"))


@pytest.fixture
def layout(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    review_workspace(tmp_path, "outside")
    evil = tmp_path / "root-evil"  # the root's name as a prefix (CVE-2025-53110's shape)
    review_workspace(tmp_path, "root-evil")
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "file.txt").write_text("not a directory")
    return root, outside, evil


def _bodies(workspace: str) -> list[dict]:
    return [{"job": "agent", "params": {"workspace": workspace, "request": "delete it all"}},
            {"job": "review", "params": {"workspace": workspace, "files": ["calc.py"]}}]


def test_workspaces_outside_the_roots_are_refused(layout):
    root, outside, evil = layout
    before = (_snapshot(outside), _snapshot(evil))
    forbidden = [str(outside), f"{root}/../outside", str(root / "link"), "link",
                 str(evil), "../root-evil", "/", "/etc", "..", f"{root}/link/../../outside"]
    with served(root, REVIEW_SCRIPT) as client:
        for workspace in forbidden:
            for body in _bodies(workspace):
                answer = client.post("/api/runs", json=body)
                assert answer.status_code == 403, (workspace, answer.text)
                assert answer.json()["error"] == "outside roots"
        bad = ["~", "~/x", "$HOME", "missing-dir", "file.txt", "a\x00b", " "]
        for workspace in bad:
            for body in _bodies(workspace):
                answer = client.post("/api/runs", json=body)
                assert answer.status_code in (400, 422), (workspace, answer.text)
        assert client.get("/api/runs").json()["total"] == 0
    assert (_snapshot(outside), _snapshot(evil)) == before  # no .git made, nothing written
    assert not (outside / ".git").exists()


def test_review_files_cannot_climb_out_of_their_workspace(layout, tmp_path):
    root, outside, _evil = layout
    ws = review_workspace(root)
    (ws / "escape.py").symlink_to(outside / "calc.py")
    with served(root, REVIEW_SCRIPT) as client:
        for name in ("../outside/calc.py", str(outside / "calc.py"), "escape.py",
                     "../../outside/calc.py", ".git/config", "sub/../../x.py"):
            answer = client.post("/api/runs", json={"job": "review", "params": {
                "workspace": str(ws), "files": [name]}})
            assert answer.status_code == 400, (name, answer.text)
        assert client.get("/api/runs").json()["total"] == 0


def test_model_files_outside_the_roots_are_refused(layout, tmp_path):
    root, outside, _evil = layout
    secret = outside / "script.yaml"
    secret.write_text("- leaked reply\n")
    os.symlink(secret, root / "script-link.yaml")
    with served(root) as client:
        for spec in (f"scripted:{secret}", f"scripted:{root}/../outside/script.yaml",
                     f"scripted:{root / 'script-link.yaml'}", "local:/etc/passwd.gguf",
                     f"local:{outside}/m.gguf", "scripted:/etc/passwd"):
            answer = client.post("/api/runs", json={"job": "solve", "params": {
                "task": {"signature": "def f()", "docstring": "x"}, "model": spec}})
            assert answer.status_code == 400, (spec, answer.text)
            assert answer.json()["error"] == "model" and "leaked" not in answer.text
        inside = write_script(root, ["```python\ndef f():\n    return 1\n```"], "mine.yaml")
        ok = client.post("/api/runs", json={"job": "solve", "params": {
            "task": {"signature": "def f()", "docstring": "x"}, "model": inside}})
        assert ok.status_code == 202
