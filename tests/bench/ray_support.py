"""Helpers for the bench and Ray tests: scripts the scripted model answers from any worker process (by
the problem's entry point), stable record views, and finding the unit's worker process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

# Fields that depend on the clock, not on what was answered or how it scored.
TIMING = {"seconds", "llm_seconds", "score_seconds"}


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def write_script(path: Path, problems, *, wrong=(), no_code=(), delay: float = 0.0,
                 preamble: str = "") -> str:
    """A script file answering each problem by its entry point (any order, any process);
    the spec `scripted:PATH`. `preamble` goes before every answer's code."""
    rules = answer_rules(problems, wrong, no_code, preamble)
    path.write_text(json.dumps({"replies": rules, "delay_seconds": delay}), encoding="utf-8")
    return f"scripted:{path}"


def answer_rules(problems, wrong=(), no_code=(), preamble: str = "") -> list[dict]:
    """One reply per problem, chosen by its entry point, so order does not matter: the
    reference solution, a wrong one (`wrong`) or no code (`no_code`)."""
    rules = []
    for p in problems:
        if p.task_id in no_code:
            reply = "I am not sure how to do this."
        elif p.task_id in wrong:
            reply = fenced(f"def {p.entry_point}(*args):\n    return None")
        else:
            reply = fenced(preamble + p.prompt + p.reference)
        rules.append({"match": f"def {p.entry_point}(", "reply": reply})
    return rules


def records(run_dir: Path) -> list[dict]:
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def stable(record: dict) -> dict:
    out = {k: v for k, v in record.items() if k not in TIMING}
    out["stages"] = {name: {k: v for k, v in stage.items() if k != "seconds"}
                     for name, stage in record["stages"].items()}
    return out


def unit_pids() -> list[int]:
    """Ray names a worker process after the task it is running: `ray::run_unit`."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True,
                         check=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()
            if line.split(None, 1)[1:] and line.split(None, 1)[1].startswith("ray::run_unit")]


def kill_units(count: int, *, timeout: float = 60.0) -> list[int]:
    """SIGKILL `count` distinct unit processes as they appear; the pids killed."""
    killed: list[int] = []
    deadline = time.monotonic() + timeout
    while len(killed) < count and time.monotonic() < deadline:
        for pid in unit_pids():
            if pid not in killed and len(killed) < count:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        time.sleep(0.1)
    return killed


def wait_for(predicate, timeout: float = 30.0, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
