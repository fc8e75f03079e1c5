"""Runs outlive their processes: a waiting run is approved from another process after the
first exited, and a run killed (-9) in the middle of a refinement resumes from its
checkpoint with nothing lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

from review_helpers import BUGGY, FIX_EDIT, FIXED, approve, tree_hash

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import decide_review, resume_review
from codeloop.store import RunNotResumable, RunStore

PRELUDE = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from codeloop.llm.scripted import ScriptedLLM
    from codeloop.store import RunStore
    from codeloop.review.service import ReviewRequest, start_review, decide_review
    store = RunStore(sys.argv[1])
""")


def _python(code: str, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(code), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def test_approve_from_a_second_process_after_the_first_exited(workspace, tmp_path):
    db = str(tmp_path / "runs.db")
    first = _finish(_python(f"""
        llm = ScriptedLLM({[approve(), FIX_EDIT, approve()]!r})
        out = start_review(ReviewRequest(workspace=sys.argv[2], files=["calc.py"]), llm, store)
        print(json.dumps({{"run_id": out.run_id, "status": out.status,
                          "digest": out.diff_digest}}))
    """, db, str(workspace)))
    assert first["status"] == "awaiting_approval"
    assert (workspace / "calc.py").read_text() == BUGGY
    second = _finish(_python("""
        out = decide_review(sys.argv[2], approved=True, message="LGTM from elsewhere",
                            llm=ScriptedLLM([]), store=store, digest=sys.argv[3])
        print(json.dumps({"status": out.status, "written": out.written}))
    """, db, first["run_id"], first["digest"]))
    assert second == {"status": "applied", "written": ["calc.py"]}
    assert (workspace / "calc.py").read_text() == FIXED
    with RunStore(db) as store:
        assert store.get_run(first["run_id"]).status == "succeeded"
        # a second decision on a finished run is refused in one line
        try:
            decide_review(first["run_id"], approved=True, message="", llm=ScriptedLLM([]),
                          store=store, digest=first["digest"])
        except RunNotResumable as exc:
            assert "succeeded" in str(exc) and "\n" not in str(exc)
        else:
            raise AssertionError("a finished run was decided again")


def test_killed_during_refinement_resumes_from_the_checkpoint(workspace, tmp_path):
    db, marker = str(tmp_path / "runs.db"), tmp_path / "refining"
    before = tree_hash(workspace)
    proc = _python(f"""
        class SlowRefiner(ScriptedLLM):
            # the edit engine streams its replies (to stop one that loops): both ways wait
            def _slow(self, messages):
                if "Reply with every file you change" in messages[-1].content:
                    Path(sys.argv[3]).write_text("now")
                    time.sleep(120)

            def complete(self, messages, **kwargs):
                self._slow(messages)
                return super().complete(messages, **kwargs)

            def stream(self, messages, **kwargs):
                self._slow(messages)
                return super().stream(messages, **kwargs)
        llm = SlowRefiner({[approve(), FIX_EDIT, approve()]!r})
        start_review(ReviewRequest(workspace=sys.argv[2], files=["calc.py"]), llm, store)
    """, db, str(workspace), str(marker), start_new_session=True)
    deadline = time.time() + 60
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        assert time.time() < deadline, "the run never reached the refiner"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)

    with RunStore(db) as store:
        [run] = store.list_runs("review")
        assert run.status == "running"  # its owner is dead; resume_review will judge that
        kinds = [e.type for _seq, e in store.events(run.id)]
        assert kinds.count("llm_call") == 1 and "test_result" in kinds  # the first review
        llm = ScriptedLLM([FIX_EDIT, approve()])  # only what was not done yet
        out = resume_review(run.id, llm, store)
        assert out.status == "awaiting_approval", out.message
        assert out.review_feedback["iteration"] == 2  # the first review was kept
        assert len(out.refinements) == 1 and llm.remaining == 0
        assert "failing test test_calc.py::test_add" in llm.calls[0][-1].content
        assert tree_hash(workspace) == before
        # events go on after the ones recorded before the kill
        seqs = [seq for seq, _e in store.events(run.id)]
        assert seqs == list(range(1, len(seqs) + 1))
        done = decide_review(run.id, approved=True, message="ok", llm=llm, store=store,
                             digest=out.diff_digest)
        assert done.written == ["calc.py"] and (workspace / "calc.py").read_text() == FIXED
        try:
            resume_review(run.id, llm, store)
        except RunNotResumable as exc:
            assert "not interrupted" in str(exc)
        else:
            raise AssertionError("a finished run was resumed")
