"""The kit's edit engine (jobs/edit_engine) on the scripted model, with a real workspace, the
real workspace tools and pytest in the real sandbox: a repair in one call, what the model did
not mean to change kept, an echo met with another framing (then a sample at temperature),
recognisable code in a broken reply used, a refused write said in the next prompt."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace

import pytest

from codeloop.agent.factory import agent_spec
from codeloop.agent.snapshots import init_repo
from codeloop.jobs import edit_engine
from codeloop.jobs.edit_engine import Check, EditTask, ToolboxSite, run_edit
from codeloop.jobs.edit_engine.blank_bodies import PLACEHOLDER
from codeloop.jobs.edit_engine.copied_tests import copied_tests
from codeloop.jobs.edit_engine.raised_in import raised_in
from codeloop.jobs.edit_engine.rounds import FRESH_TEMPERATURE, RETRY_TEMPERATURE
from codeloop.llm.scripted import ScriptedLLM
from codeloop.tools import Workspace

BUGGY = ('"""Ages."""\n\nLIMIT = 150\n\n\ndef parse_age(text):\n    """The age, or None."""\n'
         '    value = int(text)\n    return value\n\n\n'
         '"""Notes kept at the end of the module: never lost."""\n')
FIXED_BODY = ('def parse_age(text):\n    """The age, or None."""\n    if not text.isdigit():\n'
              '        return None\n    value = int(text)\n    return value if value <= LIMIT else None\n')
TESTS = ("from ages import parse_age\n\n\ndef test_valid():\n    assert parse_age('42') == 42\n\n\n"
         "def test_invalid():\n    assert parse_age('abc') is None\n\n\n"
         "def test_too_old():\n    assert parse_age('200') is None\n")


@pytest.fixture
def box(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "ages.py").write_text(BUGGY)
    (root / "test_ages.py").write_text(TESTS)
    init_repo(root)
    return agent_spec("single", Workspace.at(root)).toolbox


def _task(box, failure: Check | None = None) -> EditTask:
    files = {p: box.workspace.read_text(p) for p in ("ages.py", "test_ages.py")}
    return EditTask(request="Fix parse_age in ages.py: the tests fail.", files=files,
                    edit=["ages.py"], spec=["test_ages.py"], failure=failure)


def _site(box) -> ToolboxSite:
    return ToolboxSite(box, edit_engine.test_command(box.workspace.walk_files()))


def test_a_rewrite_keeps_the_trailing_docstring_and_constants_it_dropped(box):
    # The whole module back, without its docstrings and its LIMIT constant: the fix is kept,
    # and what the model did not mean to change comes back from the original.
    llm = ScriptedLLM([f"FILE: ages.py\n```python\n{FIXED_BODY}```\n"])
    result = run_edit(llm, _task(box), _site(box))
    text = box.workspace.read_text("ages.py")
    assert result.passed and result.calls == 1
    assert text.startswith('"""Ages."""')
    assert "LIMIT = 150" in text
    assert text.rstrip().endswith('"""Notes kept at the end of the module: never lost."""')
    assert "if not text.isdigit()" in text


def test_an_echo_gets_the_failure_worked_through_then_the_function_asked_anew(box):
    site = _site(box)
    failing = site.check()
    assert failing is not None and not failing.passed
    echo = f"FILE: ages.py\n```python\n{BUGGY}```\n"
    # the new body comes back under the placeholder line it was shown: that line goes
    anew = FIXED_BODY.replace('"""\n', f'"""\n    {PLACEHOLDER}\n', 1)
    llm = ScriptedLLM([echo, echo, f"FILE: ages.py\n```python\n{anew}```\n"])
    result = run_edit(llm, _task(box, failing), site)
    assert result.passed and result.calls == 3
    second, last = (llm.calls[n][-1].content for n in (1, 2))
    assert "back unchanged" in second and "The lines the failure points at" in second
    assert "ages.py line " in second and "value = int(text)" in second
    assert "worked through" in second or "The check fails with" in second
    # twice unchanged: parse_age, which the failure calls, shown without its body
    assert "The body of ages.py: parse_age is left out above" in last
    assert "value = int(text)" not in last and "raise NotImplementedError" in last
    assert "LIMIT = 150" in last and "Notes kept at the end" in last  # the rest as it is
    assert "The lines the failure points at" not in last
    text = box.workspace.read_text("ages.py")
    assert "if not text.isdigit()" in text and PLACEHOLDER not in text
    assert text.rstrip().endswith('"""Notes kept at the end of the module: never lost."""')
    # greedy twice, then a sample: the same prompt would get the same answer
    assert llm.temperatures == [0.0, 0.0, RETRY_TEMPERATURE]


class NamelessCheckSite(ToolboxSite):
    """A check whose failure calls no function of the file (a finding, not a traceback)."""

    def check(self):
        text = self.box.workspace.read_text("ages.py")
        return Check("isdigit" in text, "" if "isdigit" in text else
                     "the request is not done yet: ages must be checked before use")


def test_an_echo_of_a_failure_that_names_no_function_gets_the_models_reading(box):
    site = NamelessCheckSite(box, edit_engine.test_command(box.workspace.walk_files()))
    echo = f"FILE: ages.py\n```python\n{BUGGY}```\n"
    reading = "int(text) runs on any text: nothing checks it first."
    llm = ScriptedLLM([echo, echo, reading, f"FILE: ages.py\n```python\n{FIXED_BODY}```\n"])
    result = run_edit(llm, _task(box, site.check()), site)
    assert result.passed and result.calls == 4
    asked, last = llm.calls[2][-1].content, llm.calls[3][-1].content
    assert "Which line of the code makes the tests fail" in asked
    assert f"What is wrong, as you read it before (check it against the code): {reading}" in last
    assert "value = int(text)" in last  # nothing blanked: the failure named no function
    assert llm.temperatures[3] == RETRY_TEMPERATURE


class ScoringSite(ToolboxSite):
    """Counts the tests passing, as review's site does (the rounds keep the best)."""

    def check(self):
        found = super().check()
        passed = re.search(r"(\d+) passed", found.output) if found is not None else None
        return found if found is None else replace(found, score=int(passed.group(1))
                                                   if passed else 0)


def test_a_blanked_round_that_leaves_fewer_tests_passing_is_undone(box):
    # the body asked anew comes back as the placeholder's `raise`: worse than the echo
    site = ScoringSite(box, edit_engine.test_command(box.workspace.walk_files()))
    echo = f"FILE: ages.py\n```python\n{BUGGY}```\n"
    worse = "FILE: ages.py\n```python\ndef parse_age(text):\n    raise NotImplementedError\n```\n"
    llm = ScriptedLLM([echo, echo, worse])
    result = run_edit(llm, _task(box, site.check()), site)
    assert not result.passed and result.calls == 3
    assert box.workspace.read_text("ages.py") == BUGGY


def test_a_fix_in_a_malformed_block_is_used(box):
    # no SEARCH part, a bare ======= before the fixed function: the function is merged in
    reply = f"ages.py\n```python\n=======\n{FIXED_BODY}>>>>>>> REPLACE\n```\n"
    llm = ScriptedLLM([reply])
    result = run_edit(llm, _task(box), _site(box))
    assert result.passed, result.notes
    assert "if not text.isdigit()" in box.workspace.read_text("ages.py")


def test_a_bare_function_for_one_of_two_targets_is_merged_into_it(box):
    box.workspace.write_text("other.py", "def helper():\n    return 1\n")
    task = _task(box)
    task.files["other.py"] = box.workspace.read_text("other.py")
    task.edit.append("other.py")
    llm = ScriptedLLM([f"Here is the fix:\n```python\n{FIXED_BODY}```\n"])
    result = run_edit(llm, task, _site(box))
    assert result.passed and list(result.files) == ["ages.py"]


class RefusingSite(ToolboxSite):
    def write(self, path: str, text: str) -> str | None:
        if path != "ages.py":
            return f"{path}: the request gave no reason to create it"
        return super().write(path, text)


def test_a_refused_write_is_said_in_the_next_prompt_and_a_test_is_never_written(box):
    llm = ScriptedLLM([
        ("FILE: relative/path.py\n```python\nx = 1\n```\n\nFILE: test_ages.py\n```python\n"
        "def test_nothing():\n    pass\n```\n"),
        f"FILE: ages.py\n```python\n{FIXED_BODY}```\n"])
    site = RefusingSite(box, edit_engine.test_command(box.workspace.walk_files()))
    result = run_edit(llm, _task(box), site)
    assert result.passed and list(result.files) == ["ages.py"]
    assert not (box.workspace.root / "relative" / "path.py").exists()
    assert box.workspace.read_text("test_ages.py") == TESTS
    second = llm.calls[1][-1].content
    assert "relative/path.py is not a file of this request" in second
    assert "test_ages.py was not changed" in second


def test_a_reply_that_only_rewrites_the_tests_gets_the_echo_framing(box):
    site = _site(box)
    failing = site.check()
    tests_only = f"FILE: test_ages.py\n```python\n{TESTS}\n# changed\n```\n"
    llm = ScriptedLLM([tests_only, tests_only, f"FILE: ages.py\n```python\n{FIXED_BODY}```\n"])
    result = run_edit(llm, _task(box, failing), site)
    assert result.passed and box.workspace.read_text("test_ages.py") == TESTS
    second = llm.calls[1][-1].content
    assert "You rewrote only test_ages.py" in second and "Change ages.py instead" in second
    assert "The lines the failure points at" in second
    assert "parse_age is left out above" in llm.calls[2][-1].content
    assert llm.temperatures[2] == RETRY_TEMPERATURE  # twice the same: a sample


def test_a_file_created_in_one_round_is_shown_as_it_is_in_the_next(box):
    # The engine listed a new file as "to create" in every round, never showing what the
    # earlier round wrote (build's task modules): the model rewrote it blind each time.
    (box.workspace.root / "test_ages.py").write_text(
        "from limits import LIMIT\n\n\ndef test_limit():\n    assert LIMIT == 150\n")
    task = EditTask(request="Create limits.py with LIMIT = 150.",
                    files={"test_ages.py": box.workspace.read_text("test_ages.py")},
                    edit=[], spec=["test_ages.py"], new=["limits.py"])
    llm = ScriptedLLM(["FILE: limits.py\n```python\nLIMIT = 15\n```\n",
                       "FILE: limits.py\n```python\nLIMIT = 150\n```\n"])
    result = run_edit(llm, task, _site(box))
    assert result.passed and result.calls == 2
    second = llm.calls[1][-1].content
    assert "FILE: limits.py\n```python\nLIMIT = 15\n```" in second
    assert "New files to create" not in second


def _limits_task(box) -> EditTask:
    (box.workspace.root / "test_ages.py").write_text(
        "from limits import LIMIT\n\n\ndef test_limit():\n    assert LIMIT == 150\n")
    return EditTask(request="Create limits.py with LIMIT = 150.",
                    files={"test_ages.py": box.workspace.read_text("test_ages.py")},
                    edit=[], spec=["test_ages.py"], new=["limits.py"])


def test_code_that_raises_and_comes_back_twice_gets_the_first_prompt_again_sampled(box):
    # build (the model wrote the tests too): a module that raises at import, sent back
    # unchanged twice, is asked for anew: the first prompt, the bad file not shown, the error
    # said, sampled; the model's reading is not asked for
    raises = "FILE: limits.py\n```python\nLIMIT = int('one fifty')\n```\n"
    llm = ScriptedLLM([raises, raises, raises, "FILE: limits.py\n```python\nLIMIT = 150\n```\n"])
    result = run_edit(llm, _limits_task(box), _site(box), rounds=4, after_two_echoes="restart")
    assert result.passed and result.calls == 4
    assert box.workspace.read_text("limits.py") == "LIMIT = 150\n"
    fresh = llm.calls[3][-1].content
    assert "An earlier answer to this request did not work: limits.py line 1 " in fresh
    assert "ValueError" in fresh and "New files to create: limits.py" in fresh
    assert "FILE: limits.py" not in fresh and "attempt" not in fresh
    assert llm.temperatures[3] == FRESH_TEMPERATURE


def test_a_fresh_answer_that_does_not_parse_is_sampled_once_more_beyond_the_rounds(box):
    # the 1.5B's todo T2: the restart's sampled answer did not parse, and it was the last
    # round; one more sample of the same prompt, once
    raises = "FILE: limits.py\n```python\nLIMIT = int('one fifty')\n```\n"
    broken = "FILE: limits.py\n```python\nLIMIT = (150\n```\n"
    llm = ScriptedLLM([raises, raises, raises, broken,
                       "FILE: limits.py\n```python\nLIMIT = 150\n```\n"])
    result = run_edit(llm, _limits_task(box), _site(box), rounds=4, after_two_echoes="restart")
    assert result.passed and result.calls == 5
    assert llm.calls[4][-1].content == llm.calls[3][-1].content  # the same first prompt
    assert llm.temperatures[4] == FRESH_TEMPERATURE
    # twice unusable: no third sample
    llm = ScriptedLLM([raises, raises, raises, broken, broken, "unused"])
    result = run_edit(llm, _limits_task(box), _site(box), rounds=4, after_two_echoes="restart")
    assert not result.passed and result.calls == 5


def test_code_whose_own_tests_fail_on_their_checks_ends_the_rounds_after_two_echoes(box):
    # the model stands by its code against its own test's assertion: the rounds end (the
    # caller may repair the tests) instead of asking for a reading and another round
    wrong = "FILE: limits.py\n```python\nLIMIT = 15\n```\n"
    llm = ScriptedLLM([wrong, wrong, wrong, "unused"])
    result = run_edit(llm, _limits_task(box), _site(box), rounds=4, after_two_echoes="restart")
    assert not result.passed and result.calls == 3
    assert sum("back unchanged" in note for note in result.notes) == 2


def test_raised_in_reads_where_real_pytest_runs_raised(tmp_path):
    (tmp_path / "calc.py").write_text("import json\n\n\ndef add(a, b):\n    return a - b\n\n\n"
                                      "def key(x):\n    return json.loads(x)\n")
    (tmp_path / "broken.py").write_text("VALUE = int('x')\n")
    (tmp_path / "test_calc.py").write_text(
        "from calc import add, key\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_key():\n    assert key('k') == 1\n")
    (tmp_path / "test_broken.py").write_text("import broken\n")
    paths = ["calc.py", "broken.py"]
    for style in ("--tb=long", "--tb=short"):
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              style, "test_calc.py"], cwd=tmp_path, capture_output=True,
                             text=True, check=False)
        found = raised_in(run.stdout, paths)
        # the assertion of test_add is the test's; calc.py line 9 called the library
        # (json's own frames are absolute paths) that raised
        assert [(r.path, r.line) for r in found] == [("calc.py", 9)]
        assert found[0].error.startswith("json.decoder.JSONDecodeError")
        assert raised_in(run.stdout, ["other.py"]) == []
    collected = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                "test_broken.py"], cwd=tmp_path, capture_output=True, text=True,
                               check=False)
    found = raised_in(collected.stdout, paths)
    assert [(r.path, r.line) for r in found] == [("broken.py", 1)]
    assert found[0].error.startswith("ValueError: invalid literal")
    assert found[0].said("VALUE = int('x')\n").startswith("broken.py line 1 (VALUE = int('x'))")


def test_raised_in_ends_a_section_at_the_warnings_summary(tmp_path):
    # a test importing a name the module lacks: the module's (it must define the name), not
    # a line of it; the module's deprecation warning, listed after it with the sandbox's
    # /workspace path, is no frame of it (else line 3)
    (tmp_path / "models.py").write_text("import warnings\n\nwarnings.warn('old style', "
                                        "DeprecationWarning)\nVALUE = 1\n")
    (tmp_path / "test_models.py").write_text("from models import VALUE, MISSING\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "test_models.py"], cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    as_in_the_sandbox = run.stdout.replace(str(tmp_path), "/workspace")
    assert "/workspace/models.py:3: DeprecationWarning" in as_in_the_sandbox
    found = raised_in(as_in_the_sandbox, ["models.py"])
    assert [(r.path, r.line) for r in found] == [("models.py", 0)]
    assert found[0].said("").startswith(
        "importing from models.py raised ImportError: cannot import name 'MISSING' from "
        "'models'")
    # a name missing from a module the model does not write stays the test's
    assert raised_in(as_in_the_sandbox, ["other.py"]) == []


def test_raised_in_reads_a_validators_message_as_the_models(tmp_path):
    # inventory I1 at f6b8a6d: the model's made-up validator refused a right test's name;
    # pytest shows no frame of a validator, only pydantic's "Value error, <message>"
    models = ("from pydantic import BaseModel, field_validator\n\n\nclass ItemIn(BaseModel):\n"
              "    name: str\n\n    @field_validator('name')\n    def alnum(cls, value):\n"
              "        if not value.isalnum():\n"
              "            raise ValueError('Name must be alphanumeric')\n        return value\n")
    (tmp_path / "models.py").write_text(models)
    (tmp_path / "test_models.py").write_text(
        "from models import ItemIn\n\n\ndef test_item():\n"
        "    assert ItemIn(name='Test Item').name == 'Test Item'\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--tb=short", "test_models.py"], cwd=tmp_path, capture_output=True,
                         text=True, check=False)
    assert "Value error, Name must be alphanumeric" in run.stdout
    assert raised_in(run.stdout, ["models.py"]) == []  # the test's, without the sources
    found = raised_in(run.stdout, ["models.py"], {"models.py": models})
    assert [(r.path, r.line) for r in found] == [("models.py", 10)]
    assert found[0].said(models) == ("models.py line 10 (raise ValueError('Name must be "
                                     "alphanumeric')) raised ValidationError: Name must be "
                                     "alphanumeric")
    # a message no file the model writes holds is not the model's
    assert raised_in(run.stdout, ["models.py"], {"models.py": "VALUE = 1\n"}) == []


def test_a_code_reply_that_loops_is_stopped_and_the_next_round_told(box):
    # shortener S1 at f6b8a6d: a code round rewrote the tests, `assert encode(n) == ...` to
    # the 1536-token limit (151 s); the reply is stopped once eight lines have one shape
    looping = ("FILE: limits.py\n```python\nLIMIT = 15\n```\n\nFILE: test_ages.py\n```python\n"
               "def test_limit():\n" + "".join(f"    assert LIMIT != {n}\n" for n in range(60)))
    llm = ScriptedLLM([looping, "FILE: limits.py\n```python\nLIMIT = 150\n```\n"])
    result = run_edit(llm, _limits_task(box), _site(box), rounds=2)
    assert result.passed and result.calls == 2
    assert result.replies[0].count("assert") == 8  # stopped at the loop, not at the limit
    assert "attempt 1 was cut off at the length limit" in llm.calls[1][-1].content


def test_tests_sent_back_as_the_code_are_not_shown_again(box):
    # shortener S4 at 48067b3: four replies in a row were the tests, as app/routes.py
    (box.workspace.root / "ages.py").unlink()
    files = {"test_ages.py": TESTS}
    task = EditTask(request="Create ages.py with parse_age(text): the age, or None when the "
                            "text is no number or above 150.", files=files, edit=[],
                    new=["ages.py"], spec=["test_ages.py"])
    copy = f"FILE: ages.py\n```python\n{TESTS}```\n"
    code = "LIMIT = 150\n\n\n" + FIXED_BODY
    llm = ScriptedLLM([copy, f"FILE: ages.py\n```python\n{code}```\n"])
    result = run_edit(llm, task, _site(box))
    assert result.passed and result.calls == 2
    first, second = (llm.calls[n][-1].content for n in (0, 1))
    assert "def test_too_old" in first
    assert "def test_too_old" not in second and "FILE: test_ages.py" not in second
    assert ("attempt 1 sent the tests back (test_ages.py as ages.py): test_ages.py is in "
            "place and is not shown again") in second
    assert "changed no file" not in second
    assert box.workspace.read_text("test_ages.py") == TESTS
    assert "isdigit" in box.workspace.read_text("ages.py")


def test_code_that_shares_a_few_lines_with_its_tests_is_no_copy():
    code = "LIMIT = 150\n\n\n" + FIXED_BODY + "\n\ndef test_helper():\n    return parse_age('42')\n"
    shown = {"test_ages.py": TESTS}
    assert copied_tests({"ages.py": code}, shown, ["test_ages.py"], ["ages.py"]) == {}
    assert copied_tests({"ages.py": TESTS}, shown, ["test_ages.py"], ["ages.py"]) == {
        "ages.py": "test_ages.py"}
    # a test file the request asks to write is no copy of the code's tests
    assert copied_tests({"test_more.py": TESTS}, shown, ["test_ages.py"],
                        ["test_more.py"]) == {}
