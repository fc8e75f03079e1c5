"""The integration never leaves main worse than it found it: when its writes break a suite
that passed and its fixes do not mend it, main goes back to the merged tasks' commit (the
1.5B's todo run left an app/__init__.py that imports app.main, and main's suite failing).
Real build: git, sandbox, pytest, scripted agents."""

from __future__ import annotations

from build_replies import file_reply, func_task, tasks

from codeloop.gitutil import git

BREAKS = file_reply(("app/__init__.py", "from app.missing import thing\n"))


def test_an_integration_that_breaks_a_passing_suite_is_rolled_back(build):
    # the wiring, three fix rounds and the reading of the failure after two echoes
    agents = {"task:A": func_task("a", "1"), "integration": [BREAKS] * 5}
    built = build(tasks(("A",)), agents)

    assert built.final["status"] == "COMPLETE", built.final
    report = built.final["integration"]
    assert report["passed"] is True and report["fixes"] == 3
    assert any("rolled back" in note for note in report["notes"])
    assert not (built.out / "app" / "__init__.py").read_text().startswith("from app.missing")
    log = git(["log", "--format=%s"], built.out).stdout.splitlines()
    assert not any(line.startswith("integration:") for line in log)
    assert git(["status", "--porcelain"], built.out).stdout == ""
    assert any("rolled back" in line for line in built.progress())


def test_an_integration_that_mends_the_suite_is_kept(build):
    # the wiring breaks it, the first fix mends it: kept, with its commits
    mend = file_reply(("app/__init__.py", ""))
    agents = {"task:A": func_task("a", "1"), "integration": [BREAKS, mend]}
    built = build(tasks(("A",)), agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert not any("rolled back" in n for n in built.final["integration"]["notes"])
    log = git(["log", "--format=%s"], built.out).stdout.splitlines()
    assert any(line.startswith("integration:") for line in log)
