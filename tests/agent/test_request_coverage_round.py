"""The round after a passing context-first edit that left the request partly done
(jobs/edit_engine/request_coverage.py rules, jobs/react/context_first.py): on the scripted model
with the real sandbox, real pytest and a real git workspace. The round finishes the request,
or the model says nothing more is needed, or the round breaks the tests and is undone."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.edit_engine.direct_files import MAX_FILE_BYTES, project_texts
from codeloop.jobs.react.state import AgentLimits
from codeloop.llm.scripted import approx_tokens

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


def _partial_samples(count: int = 3) -> list[str]:
    """Fresh answers to the first prompt that do only part of the request again."""
    return [_whole("models.py", MODELS_NEW)] * count


def test_done_is_checked_by_fresh_samples_and_the_passing_edit_stays(repo, store, snapshots):
    """The model says DONE where the rules see a part undone: fresh answers to the first
    prompt get their chance; none does more, so the edit that passed stays."""
    llm = scripted(_whole("models.py", MODELS_NEW), "DONE", *_partial_samples())
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and len(llm.calls) == 5
    assert (repo.root / "models.py").read_text() == MODELS_NEW
    assert (repo.root / "report.py").read_text() == REPORT


def test_a_fresh_sample_that_does_the_whole_request_is_kept(repo, store, snapshots):
    """Measured: the 1.5B's rest and repair rounds keep the half-done edit's mistakes; a new
    answer to the first prompt, sampled, is a different whole edit, kept when every check
    passes."""
    crashing = REPORT_SORTED.replace("-t.priority", "-t.priority.value")
    whole = _whole("models.py", MODELS_NEW) + "\n" + _whole("report.py", REPORT_SORTED)
    llm = scripted(_whole("models.py", MODELS_NEW), _whole("report.py", crashing),
                   _whole("report.py", crashing), _whole("report.py", REPORT), whole)
    result = _ask(llm, _workspace(repo, tests=TESTS + _REPORT_TEST), store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert len(llm.calls) == 5
    # Both samples were asked the first prompt, the files as they were before the turn, with
    # the part the first edit missed pointed out; sampled, not greedy.
    sample, first = llm.calls[3][-1].content, llm.calls[0][-1].content
    checklist = ("Do every part of the request; these parts are easy to miss:\n- In report.py, "
                 "format_report lists the tasks with the highest priority first\n\n")
    assert checklist in sample and sample.replace(checklist, "") == first
    assert llm.calls[4] == llm.calls[3] and llm.temperatures[3:] == [0.8, 0.8]
    assert (repo.root / "report.py").read_text() == REPORT_SORTED
    assert (repo.root / "models.py").read_text() == MODELS_NEW
    assert sorted(c.path for c in result.changes) == ["models.py", "report.py"]


def test_a_fresh_sample_that_breaks_the_tests_is_not_kept(repo, store, snapshots):
    crashing = REPORT_SORTED.replace("-t.priority", "-t.priority.value")
    broken_whole = _whole("models.py", MODELS_NEW) + "\n" + _whole("report.py", crashing)
    llm = scripted(_whole("models.py", MODELS_NEW), _whole("report.py", crashing),
                   _whole("report.py", crashing), *[broken_whole] * 3)
    result = _ask(llm, _workspace(repo, tests=TESTS + _REPORT_TEST), store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert len(llm.calls) == 6  # the rest, its repair, three samples: never more
    assert (repo.root / "report.py").read_text() == REPORT
    assert (repo.root / "models.py").read_text() == MODELS_NEW
    assert [c.path for c in result.changes] == ["models.py"]


def test_a_rest_the_repair_round_cannot_mend_is_undone(repo, store, snapshots):
    broken = REPORT.replace("'[ ] '", "'[?] '")
    llm = scripted(_whole("models.py", MODELS_NEW),
                   _whole("report.py", broken) + "\n" + _whole("extra.py", "X = 1\n"),
                   _whole("report.py", broken.replace("[x]", "[X]")),
                   *_partial_samples())
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert len(llm.calls) == 6
    assert (repo.root / "report.py").read_text() == REPORT
    assert not (repo.root / "extra.py").exists()
    assert [c.path for c in result.changes] == ["models.py"]


def test_undoing_the_rest_puts_back_a_file_it_overwrote_that_was_never_shown(repo, store,
                                                                            snapshots):
    """The round may write any file of the project, not only those in the prompt: undone,
    a file that was there before the turn gets its text back, never deleted; so does a
    fresh sample's."""
    notes = "Project notes, written by hand.\n"
    (repo.root / "NOTES.md").write_text(notes)
    broken = REPORT.replace("'[ ] '", "'[?] '")
    overwrite = "\nFILE: NOTES.md\n```\nreplaced\n```\n"
    llm = scripted(_whole("models.py", MODELS_NEW),
                   _whole("report.py", broken) + overwrite,
                   _whole("report.py", broken.replace("[x]", "[X]")),
                   *[_whole("models.py", MODELS_NEW) + overwrite] * 3)
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and len(llm.calls) == 6
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


def test_the_budget_running_out_in_a_repair_round_puts_back_the_passing_files(repo, store,
                                                                             snapshots):
    """Before: the loop stopped on the budget and handed the broken files to the tools."""
    crashing = REPORT_SORTED.replace("-t.priority", "-t.priority.value")
    replies = [_whole("models.py", MODELS_NEW), _whole("report.py", crashing)]
    tests = TESTS + _REPORT_TEST
    probe = scripted(*replies, _whole("report.py", REPORT_SORTED))
    assert _ask(probe, _workspace(repo, tests=tests), store, snapshots).status == "finished"
    # The scripted model counts ~4 characters a token: what the first two calls cost.
    spent = [sum(approx_tokens(m.content) for m in call) + approx_tokens(reply)
             for call, reply in zip(probe.calls, replies, strict=False)]
    assert spent[1] > 40
    llm = scripted(*replies)  # no third reply: a third call would exhaust the script
    spec = agent_spec("single", _workspace(repo, tests=tests),
                      limits=AgentLimits(token_budget=spent[0] + spent[1] - 20))
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="budget")
    result = session.ask(REQUEST)
    assert len(llm.calls) == 2 and result.status == "finished"
    assert (repo.root / "report.py").read_text() == REPORT
    assert (repo.root / "models.py").read_text() == MODELS_NEW
