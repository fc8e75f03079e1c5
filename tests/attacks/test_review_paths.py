"""The review job never writes where model output points outside the workspace or at files
the host runs or reads as settings: each such artifact is a HIGH path-guard finding, is
dropped before review, and is never written, even after a person approves the rest."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, start_review
from codeloop.store import RunStore

APPROVE = {"json": {"approved": True, "issues": [], "suggestions": []}}
HOSTILE = ["../../etc/passwd", "~/.ssh/id_rsa", "${HOME}/.bashrc", "/etc/hosts",
           "link.py", "linkdir/evil.py", ".git/hooks/pre-commit", "codeloop.toml",
           "pkg/__pycache__/mod.cpython-312.pyc", "sitecustomize.py", "evil.pth",
           ".ai_context.json"]


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for current, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = Path(current, name)
            digest.update(str(path).encode())
            if not path.is_symlink():
                digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def setting(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text("ORIGINAL = True\n")
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    os.symlink(outside / "target.py", ws / "link.py")
    os.symlink(outside, ws / "linkdir")
    return ws, outside


def _files_reply(paths: list[str]) -> str:
    return "".join(f"FILE: {path}\n```python\nPWNED = True\n```\n" for path in paths)


def test_hostile_target_paths_are_high_findings_and_never_written(setting, tmp_path):
    ws, outside = setting
    before_outside = _digest(outside)
    llm = ScriptedLLM([_files_reply([*HOSTILE, "ok.py"]), APPROVE])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, request="write the module"), llm, store)
        assert out.status == "awaiting_approval", out.message
        refused = {f["file_path"] for f in out.findings if f["tool"] == "pathguard"}
        assert refused == set(HOSTILE)
        assert all(f["severity"] == "high" for f in out.findings if f["tool"] == "pathguard")
        assert [d["file_path"] for d in out.pending_diffs] == ["ok.py"]
        review_prompt = llm.calls[1][-1].content  # the dropped files are not reviewed either
        assert "etc/passwd" not in review_prompt and "pre-commit" not in review_prompt
        done = decide_review(out.run_id, approved=True, message="ok", llm=llm, store=store)
    assert done.written == ["ok.py"]
    assert _digest(outside) == before_outside
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert not (ws / "codeloop.toml").exists() and not (ws / "evil.pth").exists()
    assert not (ws / "sitecustomize.py").exists() and not (ws / "pkg").exists()
    history = (ws / ".ai_context.json").read_text()  # appended by codeloop, not the model
    assert "PWNED" not in history and '"artifacts": [\n        "ok.py"' in history
    assert os.readlink(ws / "link.py") == str(outside / "target.py")
    assert "PWNED" not in Path("/etc/hosts").read_text()


def test_only_hostile_paths_fail_the_run_with_nothing_written(setting, tmp_path):
    ws, outside = setting
    before = (_digest(ws), _digest(outside))
    llm = ScriptedLLM([_files_reply(["../../etc/passwd", "/etc/hosts"])])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, request="write it"), llm, store)
    assert out.status == "failed" and "every target path was refused" in out.message
    assert (_digest(ws), _digest(outside)) == before


def test_a_refiner_edit_creating_a_file_outside_is_refused(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("X = 1\n")
    escape = ("../escaped.py\n<<<<<<< SEARCH\n=======\nPWNED = True\n>>>>>>> REPLACE\n"
              "a.py\n<<<<<<< SEARCH\nX = 1\n=======\nX = 2\n>>>>>>> REPLACE\n")
    reject = {"json": {"approved": False, "issues": ["X must be 2"], "suggestions": []}}
    llm = ScriptedLLM([reject, escape, APPROVE])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, files=["a.py"]), llm, store)
        assert out.status == "awaiting_approval", out.message
        assert [f["file_path"] for f in out.findings if f["tool"] == "pathguard"] \
            == ["../escaped.py"]
        done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store)
    assert done.written == ["a.py"] and not (tmp_path / "escaped.py").exists()
