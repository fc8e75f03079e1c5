"""Attacks on the build job: a task agent (the model) tries to write outside its worktree,
into git metadata and the host; its test run tries to plant files; its .gitignore tries to
hide what it wrote. Each fails, and the host and the project stay clean."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "build"))

from build_replies import finish, read, replies, shell, task_script, write

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
    agents = {"task:A": task_agent, "integration": replies(read("app/main.py"), finish())}
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
    hostile = replies(
        write("../escape.py", "boom = 1"),
        write(str(absolute), "boom = 1"),
        write(".git/hooks/post-commit", "#!/bin/sh\ntouch /tmp/codeloop_hook_ran\n"),
        read(".gitignore"),
        write(".gitignore", "app/\ntests/\n"),  # hide the work from git: not obeyed
    ) + task_script("tests/test_a.py", PLANTING_TEST, "app/a.py", "def a():\n    return 1\n")
    out = tmp_path / "project"
    final, recorder = _one_task_build(tmp_path, out, hostile)

    refused = [e for e in recorder.events if e.type == "tool_call" and not e.ok]
    assert len(refused) == 3, [e.result for e in refused]
    assert not outside.exists() and not absolute.exists()
    assert not Path("/tmp/codeloop_hook_ran").exists()
    assert not Path("/tmp/codeloop_planted_abs.py").exists()
    assert not (tmp_path / "planted_outside.py").exists()
    assert not list(out.parent.glob("planted_outside.py"))
    # The test run planted nothing in the project: it ran on a throw-away copy.
    assert final["status"] == "COMPLETE", final
    assert merged_tasks(out) == ["A"]
    tracked = git(["ls-files"], out).stdout.split()
    assert "app/planted.py" not in tracked and not (out / "app" / "planted.py").exists()
    # What the tools wrote is committed although the model's .gitignore names it.
    assert {"app/a.py", "tests/test_a.py"} <= set(tracked)
    assert (out / ".gitignore").read_text() == "app/\ntests/\n"
    invalid = [e for e in recorder.events if e.type == "progress" and "invalid reply" in e.message]
    assert invalid == []  # the script ran as written: every refusal was a real tool call
    assert not (out / ".git" / "hooks" / "post-commit").exists()


def test_the_agents_shell_runs_on_a_throw_away_copy(tmp_path):
    # The code phase may run the tests itself; whatever its commands write stays in the
    # sandbox's copy: neither the branch nor main gets it.
    test = "from app.a import a\n\n\ndef test_a():\n    assert a() == 1\n"
    script = replies(write("tests/test_a.py", test), finish("tests"),
                     read("tests/test_a.py"), write("app/a.py", "def a():\n    return 1\n"),
                     shell("python -m pytest -q -p no:cacheprovider tests; "
                           "echo 'x = 1' > app/from_shell.py; touch ../outside_shell"),
                     finish("code"))
    out = tmp_path / "project"
    final, recorder = _one_task_build(tmp_path, out, script)
    ran, = [e for e in recorder.events if e.type == "tool_call" and e.tool == "run_bash_command"]
    assert ran.ok and "2 passed" in ran.result  # the agent saw its tests pass
    assert "cannot touch '../outside_shell'" in ran.result
    assert final["status"] == "COMPLETE", final
    assert not (out / "app" / "from_shell.py").exists()
    assert "app/from_shell.py" not in git(["ls-files"], out).stdout.split()
    assert not (tmp_path / "outside_shell").exists()
