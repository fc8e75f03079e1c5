"""A path the kernel refuses by its length (a name over 255 bytes: ENAMETOOLONG; a path over
PATH_MAX) in any path field is bad input: through the API a 400 whose one line says the path
is too long (it was a 500, schemathesis found it too), and through the CLI a one-line error
with exit code 2, never a traceback. Nothing is started or written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import review_workspace, served

LONG = "n" * 300  # one name past NAME_MAX (255 bytes)
WIDE = "é" * 200  # 200 characters, 400 bytes: past NAME_MAX in bytes only
DEEP = "/".join(["é" * 100] * 21)  # 2120 characters, 4220 bytes: past PATH_MAX in bytes
TASKS = Path(__file__).resolve().parents[2] / "examples" / "build" / "todo" / "tasks.json"


def _api_cases(root: Path, ws: Path) -> dict[str, dict]:
    request = json.loads(TASKS.read_text())
    task = {"signature": "def add(a, b)", "docstring": "Sum."}
    cases = {}
    for label, name in (("long", LONG), ("wide", WIDE), ("deep", DEEP)):
        cases |= {
            f"agent workspace {label}": {"job": "agent", "params": {
                "workspace": str(root / name), "request": "x"}},
            f"agent workspace relative {label}": {"job": "agent", "params": {
                "workspace": name, "request": "x"}},
            f"review workspace {label}": {"job": "review", "params": {
                "workspace": str(root / name), "files": ["calc.py"]}},
            f"review file {label}": {"job": "review", "params": {
                "workspace": str(ws), "files": [f"{name}.py"]}},
            f"review file in a directory {label}": {"job": "review", "params": {
                "workspace": str(ws), "files": [f"{name}/calc.py"]}},
            f"build out_dir {label}": {"job": "build", "params": {
                "out_dir": str(root / name), "request": request}},
        }
        if label != "deep":  # a model spec is at most 500 characters (the schema's 422)
            cases |= {
                f"local model file {label}": {"job": "solve", "params": {
                    "task": task, "model": f"local:{root}/{name}.gguf"}},
                f"scripted model file {label}": {"job": "solve", "params": {
                    "task": task, "model": f"scripted:{root}/{name}.yaml"}},
            }
    return cases


def test_every_api_path_field_answers_a_name_too_long_with_a_400(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    ws = review_workspace(root)
    with served(root) as client:
        for case, body in _api_cases(root, ws).items():
            answer = client.post("/api/runs", json=body)
            assert answer.status_code == 400, (case, answer.status_code, answer.text[:300])
            detail = answer.json()["detail"]  # the path guard's own limit says "longer than"
            assert "too long" in detail or "longer than" in detail, (case, answer.text[:300])
        assert client.get("/api/runs").json()["total"] == 0
    assert sorted(p.name for p in root.iterdir()) == ["default.yaml", "runs.sqlite", "ws"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # No model is loaded (the model file's name is what is wrong), so the guard against
    # real model calls is lifted: it would answer before the path is looked at.
    env = {k: v for k, v in os.environ.items() if k != "CODELOOP_FORBID_REAL_MODELS"}
    return subprocess.run([sys.executable, "-m", "codeloop", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL, env=env,
                          check=False)


@pytest.mark.parametrize("name", [LONG, WIDE, DEEP], ids=["long", "wide", "deep"])
def test_every_cli_path_option_answers_a_name_too_long_in_one_line(tmp_path, name):
    ws = review_workspace(tmp_path)
    far = str(tmp_path / name)
    commands = [
        ["review", "calc.py", "-w", far, "--no-input"],
        ["review", f"{name}.py", "-w", str(ws), "--no-input", "--model", "scripted:/x.yaml"],
        ["agent", "--home", far, "-p", "hello"],
        ["build", str(TASKS), "--out", far],
        ["solve", "--model", f"local:{far}.gguf"],
        ["solve", "--model", f"scripted:{far}.yaml"],
        ["ask", "--repo", far, "--no-model", "what is here"],
        ["serve", "--root", far],
        ["runs", "--store", f"{far}/runs.sqlite"],
    ]
    for command in commands:
        done = _cli(*command, cwd=tmp_path)
        shown = command[0] + " " + " ".join(a[:20] for a in command[1:])
        assert done.returncode == 2, (shown, done.returncode, done.stderr[-600:])
        assert "Traceback" not in done.stderr + done.stdout, (shown, done.stderr[-600:])
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "too long" in lines[0], (shown, done.stderr[-600:])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]
