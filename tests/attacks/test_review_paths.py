"""The review job never writes where model output points outside the workspace or at files
the host runs or reads as settings. The edit engine's reader takes no name that is not a
plain path of the request (`~/...`, `/etc/hosts`, `../../etc/passwd`, `.git/hooks/...`), and
the review's site refuses the others through the path guard and host policy (a link, a
settings file, `.pth`, the history file): each such refusal is a HIGH path-guard finding,
the file never becomes an artifact and is never written, even after a person approves the
rest. The refusal blocks that round's review whatever the model says: the run reaches
approval only after a refinement without the bad path, and a model that keeps aiming
outside fails."""

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
# names the reader takes (plain paths of the request), which the review's site then refuses
SITE_REFUSED = ["link.py", "codeloop.toml", "sitecustomize.py", "evil.pth"]  # (JSON: not parsed)


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
    before_ws = _digest(ws)
    keep_ok = "ok.py\n<<<<<<< SEARCH\nPWNED = True\n=======\nOK = True\n>>>>>>> REPLACE\n"
    llm = ScriptedLLM([_files_reply([*HOSTILE, "ok.py"]), APPROVE, keep_ok, APPROVE])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, request="write the module"), llm, store)
        assert out.status == "awaiting_approval", out.message
        assert _digest(ws) == before_ws  # nothing written before approval
        # the first review was blocked by the refusals although the model approved: the
        # refiner was told each refused path (and nothing was approved with them)
        refiner_prompt = llm.calls[2][-1].content
        for path in SITE_REFUSED:
            assert f"HIGH path-guard finding: refused target path {path!r}" in refiner_prompt
        assert [r["iteration"] for r in out.refinements] == [1] and llm.remaining == 0
        refused = {f["file_path"] for f in out.findings if f["tool"] == "pathguard"}
        assert refused == set(SITE_REFUSED)
        assert all(f["severity"] == "high" for f in out.findings if f["tool"] == "pathguard")
        assert [d["file_path"] for d in out.pending_diffs] == ["ok.py"]
        for review_prompt in (llm.calls[1][-1].content, llm.calls[3][-1].content):
            # the dropped files are not reviewed either
            assert "etc/passwd" not in review_prompt and "pre-commit" not in review_prompt
        done = decide_review(out.run_id, approved=True, message="ok", llm=llm, store=store,
                             digest=out.diff_digest)
    assert done.written == ["ok.py"] and (ws / "ok.py").read_text() == "OK = True\n"
    assert _digest(outside) == before_outside
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert not (ws / "codeloop.toml").exists() and not (ws / "evil.pth").exists()
    assert not (ws / "sitecustomize.py").exists() and not (ws / "pkg").exists()
    history = (ws / ".ai_context.json").read_text()  # appended by codeloop, not the model
    assert "PWNED" not in history and '"artifacts": [\n        "ok.py"' in history
    assert os.readlink(ws / "link.py") == str(outside / "target.py")
    assert "PWNED" not in Path("/etc/hosts").read_text()


def test_a_model_that_keeps_aiming_outside_never_reaches_approval(setting, tmp_path):
    ws, outside = setting
    before = (_digest(ws), _digest(outside))
    again = (_files_reply(["link.py"])
             + "ok.py\n<<<<<<< SEARCH\nPWNED = {}\n=======\nPWNED = {}\n>>>>>>> REPLACE\n")
    llm = ScriptedLLM([_files_reply(["link.py", "ok.py"]), APPROVE,
                       again.format(True, 1), APPROVE, again.format(1, 2), APPROVE])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, request="write the module"), llm, store)
        assert store.get_run(out.run_id).status == "failed"
    assert out.status == "failed" and out.message == "Max iterations (3) reached"
    assert out.pending_diffs == [] and out.written == []
    assert out.review_feedback["model_approved"] is True
    assert out.review_feedback["approved"] is False
    assert any("refused target path 'link.py'" in issue
               for issue in out.review_feedback["issues"])
    assert llm.remaining == 0
    assert (_digest(ws), _digest(outside)) == before
    assert "PWNED" not in Path("/etc/passwd").read_text()
    assert (outside / "target.py").read_text() == "ORIGINAL = True\n"


def test_only_hostile_paths_fail_the_run_with_nothing_written(setting, tmp_path):
    ws, outside = setting
    before = (_digest(ws), _digest(outside))
    hostile = _files_reply(["../../etc/passwd", "/etc/hosts", "link.py", "codeloop.toml"])
    llm = ScriptedLLM([hostile, hostile])  # the coder's two rounds
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, request="write it"), llm, store)
    assert out.status == "failed" and "The coder wrote no file" in out.message
    assert {f["file_path"] for f in out.findings if f["tool"] == "pathguard"} == {
        "link.py", "codeloop.toml"}
    assert (_digest(ws), _digest(outside)) == before


def test_a_refiner_edit_creating_a_file_outside_is_refused(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("X = 1\n")
    escape = ("../escaped.py\n<<<<<<< SEARCH\n=======\nPWNED = True\n>>>>>>> REPLACE\n"
              "a.py\n<<<<<<< SEARCH\nX = 1\n=======\nX = 2\n>>>>>>> REPLACE\n")
    inside = "a.py\n<<<<<<< SEARCH\nX = 2\n=======\nX = 2  # two\n>>>>>>> REPLACE\n"
    reject = {"json": {"approved": False, "issues": ["X must be 2"], "suggestions": []}}
    llm = ScriptedLLM([reject, escape, APPROVE, inside, APPROVE])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, files=["a.py"]), llm, store)
        assert out.status == "awaiting_approval", out.message
        assert [f["file_path"] for f in out.findings if f["tool"] == "pathguard"] \
            == ["../escaped.py"]
        # the review after the escaping edit was blocked; the refiner left the file out
        assert "refused target path '../escaped.py'" in llm.calls[3][-1].content
        assert [r["iteration"] for r in out.refinements] == [1, 2]
        assert [d["file_path"] for d in out.pending_diffs] == ["a.py"]
        done = decide_review(out.run_id, approved=True, message="", llm=llm, store=store,
                             digest=out.diff_digest)
    assert done.written == ["a.py"]
    assert not (tmp_path / "escaped.py").exists() and not (ws / "escaped.py").exists()
