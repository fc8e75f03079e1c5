"""The progress note that ends each observation once a turn has changed a file: what is
done (files, their last lint, the last test run) and the move that follows from it."""

from __future__ import annotations

from agent_replies import act, action_prompts, finish, scripted, unread

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.actions import MAX_THOUGHT_CHARS, action_schema, choice_schema
from codeloop.jobs.react.progress import (
    new_progress,
    progress_note,
    record,
    unfinished_work,
    untouched_named_files,
)
from codeloop.tools.toolbox import ToolOutcome

BUGGY = "def half(n):\n    return n // 3\n"
TEST = "from mathutils import half\n\n\ndef test_half():\n    assert half(8) == 4\n"


def _ask(llm, repo, store, snapshots, request):
    session = AgentSession(llm, agent_spec("single", repo), checkpointer=store.checkpointer(),
                           snapshots=snapshots, thread="p", context_first=False)
    return session.ask(request)


def _observations(llm):
    """The newest observation each choice saw, in order (the first choice saw none)."""
    return [prompt[-1].content for prompt in action_prompts(llm)[1:]]


def test_create_flow_points_to_lint_then_to_finish(repo, store, snapshots):
    llm = scripted(
        act("list_files", path=".", pattern="*"),
        act("write_file", path="add.py", content="def add(a, b):\n    return a + b\n",
            start_line=None, end_line=None),
        act("lint_file", path="add.py"),
        finish("Created add.py with add(a, b)."),
    )
    result = _ask(llm, repo, store, snapshots, "Create add.py with add(a, b)")
    assert result.status == "finished"
    listed, written, linted = _observations(llm)
    assert "Progress this turn" not in listed  # nothing changed yet: no note
    assert written.endswith("Progress this turn: add.py: changed. "
                            "Next: check it with lint_file (add.py).")
    assert "Nothing to fix." in linted
    assert "Progress this turn: add.py: lint clean." in linted
    # add.py, the one file the request names, is done: finish, without quoting the request
    # back (the 0.5B read a quoted "Create add.py" as an order to create it again).
    assert linted.endswith("add.py: lint clean. If that is everything the request asked "
                           "for, choose finish now; do not change working code.")
    assert "Create add.py" not in linted


def test_fix_flow_with_tests_runs_them_and_tracks_the_result(repo, store, snapshots):
    (repo.root / "mathutils.py").write_text(BUGGY)
    (repo.root / "test_mathutils.py").write_text(TEST)
    pytest_step = act("run_bash_command", command="python -m pytest -q", timeout=None)
    llm = scripted(
        act("read_file", path="mathutils.py", start_line=None, end_line=None),
        act("edit_file", path="mathutils.py", old_text="n // 3", new_text="n // 3 + 0"),
        act("lint_file", path="mathutils.py"),
        pytest_step,
        act("edit_file", path="mathutils.py", old_text="n // 3 + 0", new_text="n // 2"),
        act("lint_file", path="mathutils.py"),
        pytest_step,
        finish("half() divides by 2 now; the test passes."),
    )
    result = _ask(llm, repo, store, snapshots, "Fix half() so the test passes")
    assert result.status == "finished"
    notes = [text.rsplit("Progress this turn: ", 1)[1] for text in _observations(llm)[1:]]
    assert notes[0].startswith("mathutils.py: changed. Next: check it with lint_file")
    # Linted clean, tests there and not run since the change: run them.
    assert notes[1].startswith("mathutils.py: lint clean. Next: run the tests")
    assert notes[2].startswith("mathutils.py: lint clean; tests: failed. Next: the tests fail")
    # A new change makes the last test run stale.
    assert notes[3].startswith("mathutils.py: changed. Next: check it with lint_file")
    assert notes[4].startswith("mathutils.py: lint clean. Next: run the tests")
    assert notes[5].startswith("mathutils.py: lint clean; tests: passed. If that is everything")


def test_lint_problems_ask_for_a_fix(repo):
    (repo.root / "bad.py").write_text("import os\n\n\ndef f(x):\n    return y\n")
    outcome = ToolOutcome("lint_file", True, _lint(repo, "bad.py"), 0.0)
    assert "Fix the errors and warnings above." in outcome.output
    progress = record(new_progress(), outcome, {"path": "bad.py"}, False, repo)
    assert progress["files"] == {"bad.py": "lint problems"}
    assert "Next: fix what lint_file reported in bad.py." in progress_note(progress, repo)


def test_a_failed_write_and_a_non_test_command_change_nothing(repo):
    refused = ToolOutcome("write_file", False, "Error: refused '../x.py'", 0.0)
    progress = record(new_progress(), refused, {"path": "../x.py"}, True, repo)
    assert progress == new_progress() and progress_note(progress, repo) == ""
    listing = ToolOutcome("run_bash_command", True, "exit code: 1\nstdout:\n(empty)", 0.0)
    assert record(progress, listing, {"command": "ls missing"}, False, repo)["tests"] == ""


def test_pytest_finding_no_tests_is_not_a_failure(repo):
    (repo.root / "greet.py").write_text("def greet(name):\n    return 'Hi ' + name\n")
    wrote = ToolOutcome("write_file", True, "Overwrote greet.py (2 lines).", 0.0)
    progress = record(new_progress(), wrote, {"path": "greet.py"}, True, repo)
    empty = ToolOutcome("run_bash_command", True, "exit code: 5\nstdout:\nno tests ran", 0.0)
    progress = record(progress, empty, {"command": "python -m pytest -q"}, False, repo)
    assert progress["tests"] == "none found"
    failing = ToolOutcome("run_bash_command", True, "exit code: 1\nstdout:\n1 failed", 0.0)
    assert record(progress, failing, {"command": "pytest"}, False, repo)["tests"] == "failed"


def test_thoughts_are_bounded_in_both_action_schemas(repo):
    tools = list(agent_spec("single", repo).toolbox.tools.values())
    for schema in (choice_schema(tools), action_schema(tools, {"type": "object"})):
        assert schema["properties"]["thought"]["maxLength"] == MAX_THOUGHT_CHARS


def _lint(repo, path):
    from codeloop.tools.quality_tools import lint_file

    return lint_file.func(repo, path)


def test_changing_a_file_not_read_this_turn_is_refused_until_it_is_read(repo, store, snapshots):
    (repo.root / "mathutils.py").write_text(BUGGY)
    blind = act("edit_file", path="mathutils.py", old_text="n // 3", new_text="n // 2")
    llm = scripted(
        unread(blind),  # made up from the request: refused, the file stays as it was
        unread(act("write_file", path="mathutils.py", content="x = 1", start_line=None,
                   end_line=None)),
        act("read_file", path="mathutils.py", start_line=None, end_line=None),
        blind,
        act("write_file", path="new_helper.py", content="Y = 2\n", start_line=None,
            end_line=None),  # a new file needs no reading
        finish("Fixed."),
    )
    result = _ask(llm, repo, store, snapshots, "Fix half()")
    assert result.status == "finished"
    refused_edit, refused_write = _observations(llm)[:2]
    for text in (refused_edit, refused_write):
        assert "mathutils.py exists and you have not read it in this turn" in text
    assert (repo.root / "mathutils.py").read_text() == "def half(n):\n    return n // 2\n"
    assert (repo.root / "new_helper.py").read_text() == "Y = 2\n"
    # Refused on its path, a blind change is not asked for its text: 2 calls each, not 3-4.
    assert sum(1 for call in llm.calls if call[-1].content.startswith("Now write ")) == 3


def test_a_named_file_not_yet_done_is_the_next_move(repo, store, snapshots):
    request = "Add sub(a, b) to calc.py and a test for it in tests/test_calc.py"
    llm = scripted(
        act("write_file", path="calc.py", content="def sub(a, b):\n    return a - b\n",
            start_line=None, end_line=None),
        act("lint_file", path="calc.py"),
        act("write_file", path="tests/test_calc.py",
            content="from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
            start_line=None, end_line=None),
        act("lint_file", path="tests/test_calc.py"),
        finish("Added sub and its test."),
    )
    result = _ask(llm, repo, store, snapshots, request)
    assert result.status == "finished"
    notes = [text.rsplit("Progress this turn: ", 1)[1] for text in _observations(llm)]
    assert notes[1].endswith("The request also names tests/test_calc.py, not read or changed "
                             "in this turn yet: do that part next.")
    # Both named files done; a test file now exists, so the next move is to run it.
    assert "also names" not in notes[-1] and "Next: run the tests" in notes[-1]


def test_named_files_match_by_path_or_by_name():
    progress = {"files": {"src/pkg/app.py": "lint clean"}, "known": ["README.md"]}
    request = "Fix app.py as README.md says, update docs/usage.md and config.yaml; not v1.2"
    assert untouched_named_files(request, progress) == ["docs/usage.md", "config.yaml"]
    assert untouched_named_files("Rename calc_total everywhere", progress) == []
    assert untouched_named_files("Show me ../secret.txt and /etc/x.txt", progress) == []


def test_a_finish_with_a_named_file_untouched_is_held_back_once(repo, store, snapshots):
    request = "Add sub(a, b) to calc.py and a test for it in test_calc.py"
    write_calc = act("write_file", path="calc.py", content="def sub(a, b):\n    return a - b\n",
                     start_line=None, end_line=None)
    llm = scripted(write_calc, act("lint_file", path="calc.py"),
                   finish("Added sub and its test."),  # the test was never written
                   finish("Added sub; I did not write the test."))
    result = _ask(llm, repo, store, snapshots, request)
    assert result.status == "finished" and result.answer == "Added sub; I did not write the test."
    held = _observations(llm)[2]
    assert held.startswith("Not finished yet: the request names test_calc.py, which this "
                           "turn has not read or changed. Do that now.")
    assert result.steps == 3  # the held finish counts as a step


def test_a_finish_with_the_named_files_done_is_not_held(repo, store, snapshots):
    (repo.root / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    llm = scripted(act("read_file", path="calc.py", start_line=None, end_line=None),
                   finish("calc.py subtracts? No: sub adds. Say if I should fix it."))
    result = _ask(llm, repo, store, snapshots, "Does sub in calc.py subtract?")
    assert result.status == "finished" and result.steps == 1


def _written_linted_and_no_tests_ran(repo, path: str, text: str):
    """The progress after writing `path`, a clean lint, and a pytest run that found nothing."""
    (repo.root / path).write_text(text)
    wrote = ToolOutcome("write_file", True, f"Wrote {path}.", 0.0)
    progress = record(new_progress(), wrote, {"path": path}, True, repo)
    linted = ToolOutcome("lint_file", True, f"{path}\nNothing to fix.", 0.0)
    progress = record(progress, linted, {"path": path}, False, repo)
    empty = ToolOutcome("run_bash_command", True, "exit code: 5\nstdout:\nno tests ran", 0.0)
    return record(progress, empty, {"command": "python -m pytest -q"}, False, repo)


def test_a_written_test_file_that_pytest_collects_nothing_from_is_not_done(repo):
    (repo.root / "text.py").write_text("def slug(t):\n    return t.lower()\n")
    copy = "def slug(t):\n    return t.lower()\n"  # the module copied, not a test
    progress = _written_linted_and_no_tests_ran(repo, "test_text.py", copy)
    note = progress_note(progress, repo, request="Write tests for slug in test_text.py")
    assert "Next: pytest collected no tests from test_text.py" in note
    assert "choose finish" not in note
    held = unfinished_work(progress, "Write tests for slug in test_text.py", {})
    assert held == ("pytest collected no tests, and this turn wrote test_text.py: it needs "
                    "test functions named test_... at the top level")


def test_no_tests_found_after_changing_only_code_still_leads_to_finish(repo):
    progress = _written_linted_and_no_tests_ran(repo, "greet.py",
                                                "def greet(name):\n    return 'Hi ' + name\n")
    assert "choose finish now" in progress_note(progress, repo, request="Fix greet.py")
    assert unfinished_work(progress, "Fix greet.py", {}) == ""
