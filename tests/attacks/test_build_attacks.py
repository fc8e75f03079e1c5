"""Attacks on the build job: a task agent (the model) tries to write outside its worktree,
into git metadata and the host; its test run tries to plant files; its .gitignore tries to
hide what it wrote. Each fails, and the host and the project stay clean. (The task agent has
no shell: its code goes through the kit's edit engine and the harness runs the tests.)"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "build"))

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.models import scripted_agents
from codeloop.build.repo import merged_tasks
from codeloop.build.runner import BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.events import EventRecorder
from codeloop.gitutil import git
from codeloop.store import RunStore

PLANTING_TEST = """from pathlib import Path

for target in ("app/planted.py", "../planted_outside.py", "/tmp/codeloop_planted_abs.py"):
    try:
        Path(target).write_text("planted = True\\n")
    except OSError:
        pass

from app.a import a


def test_a():
    assert a() == 1
"""



def _one_task_build(tmp_path: Path, out: Path, task_agent: list):
    """A python-api build of one task A whose agent answers `task_agent`: (final state,
    the run's events)."""
    agents = {"task:A": task_agent, "integration": no_wiring()}
    request = {"tech_stack": "python-api",
               "tasks": [{"id": "A", "description": "the a function", "keywords": ["a"]}]}
    inputs = prepare(request, out_dir=out, options=BuildOptions(retries=0))
    recorder = EventRecorder()
    with RunStore(tmp_path / "runs.sqlite") as store, store.run("build", inputs.record()) as run:
        run.bus.subscribe(recorder)
        final = execute(inputs, run, store, BuildRuntime(llm_for=scripted_agents(agents)))
    return final, recorder

def test_a_hostile_task_agent_cannot_leave_its_worktree(tmp_path):
    outside = tmp_path / "escape.py"
    absolute = tmp_path / "absolute.py"
    hook = "#!/bin/sh\ntouch /tmp/codeloop_hook_ran\n"
    code = file_reply(("../escape.py", "boom = 1"), (str(absolute), "boom = 1"),
                      (".git/hooks/post-commit", hook), ("app/../../escape.py", "boom = 1"),
                      (".gitignore", "app/\ntests/\n"),  # hide the work from git: not obeyed
                      ("app/a.py", "def a():\n    return 1\n"))
    out = tmp_path / "project"
    final, recorder = _one_task_build(tmp_path, out, [reply_with_tests(PLANTING_TEST), code])

    assert not outside.exists() and not absolute.exists()
    assert not Path("/tmp/codeloop_hook_ran").exists()
    assert not Path("/tmp/codeloop_planted_abs.py").exists()
    assert not (tmp_path / "planted_outside.py").exists()
    assert not list(out.parent.glob("planted_outside.py"))
    # Only plain paths of the project reach the writes, and those go through the tools.
    written = [e.arguments["path"] for e in recorder.events if e.type == "tool_call"]
    assert sorted(written) == [".gitignore", "app/a.py", "tests/test_a.py"], written
    notes = [m for m in (e.message for e in recorder.events if e.type == "progress")
             if "it was not written" in m]
    assert len(notes) == 4, notes
    # The test run planted nothing in the project: it ran on a throw-away copy.
    assert final["status"] == "COMPLETE", final
    assert merged_tasks(out) == ["A"]
    tracked = git(["ls-files"], out).stdout.split()
    assert "app/planted.py" not in tracked and not (out / "app" / "planted.py").exists()
    # What the tools wrote is committed although the model's .gitignore names it.
    assert {"app/a.py", "tests/test_a.py"} <= set(tracked)
    assert (out / ".gitignore").read_text() == "app/\ntests/\n"
    assert not (out / ".git" / "hooks" / "post-commit").exists()
