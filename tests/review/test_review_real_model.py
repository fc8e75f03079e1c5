"""`codeloop review` on the real embedded 0.5B model, on a tiny file, through the real CLI
process: the run reaches the approval (or ends cleanly as failed), never a traceback, and
nothing is written to the workspace without an approval."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codeloop.store import RunStore

CODELOOP = str(Path(sys.executable).with_name("codeloop"))
SOURCE = "def mean(values):\n    return sum(values) / len(values)\n"


def _digest(root: Path) -> str:
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes()
                                   for p in sorted(root.rglob("*")) if p.is_file())).hexdigest()


# History, so a failure here is read right: the 0.5B may well not satisfy the reviewer
# (then the run fails after 3 rounds, exit 1); what must hold is a clean end, a recorded run
# and an untouched workspace.
@pytest.mark.real_model
@pytest.mark.timeout(1800)
def test_small_model_review_reaches_approval_or_a_clean_end(tmp_path):
    import llama_cpp  # noqa: F401 - fail (not skip) when the runtime is missing

    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "stats.py").write_text(SOURCE)
    before = _digest(ws)
    store = tmp_path / "runs.sqlite"
    env = {**os.environ, "COLUMNS": "160", "CODELOOP_N_CTX": "4096"}
    env.pop("CODELOOP_FORBID_REAL_MODELS", None)
    done = subprocess.run(
        [CODELOOP, "review", "stats.py", "--request",
         "raise ValueError when values is empty", "-w", str(ws), "--no-input", "--json",
         "--model", "local:qwen2.5-coder-0.5b", "--store", str(store)],
        capture_output=True, text=True, env=env, timeout=1700, stdin=subprocess.DEVNULL,
        check=False)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    outcome = json.loads(done.stdout)
    print(f"0.5B review: {outcome['status']}, {outcome['tokens']['total']} tokens, "
          f"{len(outcome['refinements'])} refinement(s): {outcome['message'][:200]}")
    assert outcome["status"] in ("awaiting_approval", "failed"), outcome
    assert (done.returncode == 0) == (outcome["status"] == "awaiting_approval")
    assert outcome["tokens"]["total"] > 0
    assert _digest(ws) == before  # nothing written without an approval
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.status == outcome["status"] and run.input["model"].endswith("0.5b")
    if outcome["status"] == "awaiting_approval":
        assert outcome["pending_diffs"] and all(
            d["file_path"] == "stats.py" for d in outcome["pending_diffs"])
