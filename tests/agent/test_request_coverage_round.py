"""The round after a passing context-first edit that left the request partly done
(jobs/react/request_coverage.py rules, jobs/react/context_first.py): on the scripted model
with the real sandbox, real pytest and a real git workspace. The round finishes the request,
or the model says nothing more is needed, or the round breaks the tests and is undone."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.direct_files import MAX_FILE_BYTES, project_texts
from codeloop.jobs.react.state import AgentLimits

MODELS = ("from dataclasses import dataclass\n\n\n@dataclass\nclass Task:\n    title: str\n"
          "    done: bool = False\n")
REPORT = ("from models import Task\n\n\ndef format_task(task: Task) -> str:\n"
          "    return ('[x] ' if task.done else '[ ] ') + task.title\n\n\n"
          "def format_report(tasks: list[Task]) -> str:\n"
          "    return '\\n'.join(format_task(t) for t in tasks)\n")
TESTS = ("from models import Task\nfrom report import format_task\n\n\n"
         "def test_format_task():\n    assert format_task(Task('a')) == '[ ] a'\n")
REQUEST = ("Add a priority field to Task in models.py: an int, default 0. In report.py, "
           "format_report lists the tasks with the highest priority first.")
MODELS_NEW = MODELS + "    priority: int = 0\n"
REPORT_SORTED = REPORT.replace("for t in tasks)", "for t in sorted(tasks, key=lambda t: -t.priority))")


_REPORT_TEST = ("\n\ndef test_report():\n    from report import format_report\n"
                "    assert format_report([Task('a')]) == '[ ] a'\n")


def _workspace(repo, tests=TESTS):
    for name, text in (("models.py", MODELS), ("report.py", REPORT), ("test_report.py", tests)):
        (repo.root / name).write_text(text)
    return repo


def _ask(llm, repo, store, snapshots):
    spec = agent_spec("single", repo, limits=AgentLimits())
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="cov")
    return session.ask(REQUEST)


def _whole(path: str, text: str) -> str:
    return f"FILE: {path}\n```python\n{text}```\n"


def test_a_passing_edit_that_left_a_named_function_alone_gets_one_more_round(repo, store,
                                                                              snapshots):
    llm = scripted(_whole("models.py", MODELS_NEW), _whole("report.py", REPORT_SORTED))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert (repo.root / "report.py").read_text() == REPORT_SORTED
    assert len(llm.calls) == 2
    second = llm.calls[1][-1].content
    assert "The tests pass with the files above, but the request is not all done yet" in second
    assert ('The request says "In report.py, format_report lists the tasks with the highest '
            'priority first", and report.py has not changed.') in second
    assert "FILE: models.py\n```python\n" + MODELS_NEW in second  # the files as they are now
    assert sorted(c.path for c in result.changes) == ["models.py", "report.py"]


def test_done_ends_the_turn_with_the_passing_edit(repo, store, snapshots):
    llm = scripted(_whole("models.py", MODELS_NEW), "DONE")
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and len(llm.calls) == 2
    assert (repo.root / "models.py").read_text() == MODELS_NEW
    assert (repo.root / "report.py").read_text() == REPORT


def test_a_rest_that_breaks_the_tests_gets_one_repair_round(repo, store, snapshots):
    crashing = REPORT_SORTED.replace("-t.priority", "-t.priority.value")
    llm = scripted(_whole("models.py", MODELS_NEW), _whole("report.py", crashing),
                   _whole("report.py", REPORT_SORTED))
    result = _ask(llm, _workspace(repo, tests=TESTS + _REPORT_TEST), store, snapshots)
    assert result.status == "finished" and len(llm.calls) == 3
    repair = llm.calls[2][-1].content
    assert "AttributeError" in repair  # the repair round sees the crash, and what it was for
    assert "The files above hold your changes for the rest of the request" in repair
    assert "format_report lists the tasks with the highest priority first" in repair
    assert (repo.root / "report.py").read_text() == REPORT_SORTED


def test_a_rest_the_repair_round_cannot_mend_is_undone(repo, store, snapshots):
    broken = REPORT.replace("'[ ] '", "'[?] '")
    llm = scripted(_whole("models.py", MODELS_NEW),
                   _whole("report.py", broken) + "\n" + _whole("extra.py", "X = 1\n"),
                   _whole("report.py", broken.replace("[x]", "[X]")))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert len(llm.calls) == 3  # the round for the rest and one repair, never more
    assert (repo.root / "report.py").read_text() == REPORT
    assert not (repo.root / "extra.py").exists()
    assert [c.path for c in result.changes] == ["models.py"]


def test_undoing_the_rest_puts_back_a_file_it_overwrote_that_was_never_shown(repo, store,
                                                                            snapshots):
    """The round may write any file of the project, not only those in the prompt: undone,
    a file that was there before the turn gets its text back, never deleted."""
    notes = "Project notes, written by hand.\n"
    (repo.root / "NOTES.md").write_text(notes)
    broken = REPORT.replace("'[ ] '", "'[?] '")
    llm = scripted(_whole("models.py", MODELS_NEW),
                   _whole("report.py", broken) + "\nFILE: NOTES.md\n```\nreplaced\n```\n",
                   _whole("report.py", broken.replace("[x]", "[X]")))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and len(llm.calls) == 3
    assert (repo.root / "NOTES.md").read_text() == notes
    assert (repo.root / "report.py").read_text() == REPORT
    assert [c.path for c in result.changes] == ["models.py"]


def test_a_complete_edit_gets_no_extra_round(repo, store, snapshots):
    llm = scripted(_whole("models.py", MODELS_NEW) + "\n" + _whole("report.py", REPORT_SORTED))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and len(llm.calls) == 1


def test_a_huge_model_written_file_is_not_read_into_the_hosts_memory(repo):
    """The rules search the project's text after every passing edit; a file past the cap (it
    could be gigabytes) is skipped, not read whole."""
    (repo.root / "small.py").write_text("X = 1\n")
    (repo.root / "huge.py").write_text("Y = 2\n" * (MAX_FILE_BYTES // 6 + 1))
    ws = agent_spec("single", repo, limits=AgentLimits()).toolbox.workspace
    texts = project_texts(ws, ws.walk_files())
    assert texts["small.py"] == "X = 1\n" and "huge.py" not in texts
