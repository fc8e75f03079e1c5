"""Which docstring examples become checks (jobs/edit_engine/docstring_checks.py), and how their
failures read; the run itself is covered in tests/agent/test_docstring_checks_round.py."""

from __future__ import annotations

import pytest

from codeloop.jobs.edit_engine.docstring_checks import (
    _DONE,
    docstring_checks,
    failed_examples,
    failures_text,
)
from codeloop.tools import ALL_TOOLS, Toolbox, Workspace

DONE_LINE = f'["{_DONE}"]\n'

AMOUNT = ('def format_amount(cents):\n'
          '    """Money: 1205 -> \'12.05\', 7 -> \'0.07\', -250 -> \'-2.50\'."""\n'
          '    return f"{cents // 100}.{cents % 100}"\n\n\n'
          'def double(x):\n    """double(2) == 4"""\n    return x * 2\n')


def test_only_the_changed_functions_are_checked_in_both_forms():
    fixed = AMOUNT.replace("{cents % 100}", "{cents % 100:02d}")
    assert docstring_checks({"money.py": AMOUNT}, {"money.py": fixed}) == [
        ["money", "format_amount", "format_amount(1205)", "'12.05'"],
        ["money", "format_amount", "format_amount(7)", "'0.07'"],
        ["money", "format_amount", "format_amount(-250)", "'-2.50'"]]
    doubled = AMOUNT.replace("x * 2", "x + x")
    assert docstring_checks({"money.py": AMOUNT}, {"money.py": doubled}) == [
        ["money", "double", "double(2)", "4"]]
    assert docstring_checks({"money.py": AMOUNT}, {"money.py": AMOUNT}) == []


def test_new_modules_in_folders_and_tests_and_many_parameters():
    made = {"pkg/money.py": AMOUNT, "test_money.py": AMOUNT}
    assert [c[:2] for c in docstring_checks({}, made)] == [
        ["pkg.money", "format_amount"]] * 3 + [["pkg.money", "double"]]
    two = 'def add(a, b):\n    """1 -> 2"""\n    return a + b\n'
    assert docstring_checks({}, {"m.py": two}) == []  # a bare pair needs one parameter


def test_failures_read_as_lines_and_anything_else_in_the_output_is_ignored():
    output = ('exit code: 0\nstdout:\nnoise from an import\n'
              '["format_amount(-250)", "\'-2.50\'", "\'-3.50\'"]\n' + DONE_LINE)
    assert failures_text(output) == (
        "The tests pass, but examples in the docstrings of the functions you changed do not "
        "hold:\n- format_amount(-250) should be '-2.50' (its docstring says so); it gives "
        "'-3.50'")
    assert failures_text("exit code: 0\nstdout:\n" + DONE_LINE) == ""


def test_a_run_that_never_reached_its_end_is_not_read_as_every_example_holding():
    assert "did not run to the end" in failures_text("exit code: 0\nstdout:\n(empty)")


def test_output_nested_too_deep_to_parse_gives_nothing_not_a_crash():
    """The output comes from the model's code: JSON nested past the recursion limit is not
    a failure report (json.loads raised RecursionError, which ended the agent's turn)."""
    assert failures_text("[" * 6000 + "\n" + DONE_LINE) == ""
    assert failures_text("[" * 6000 + "\n" + '["f(1)", "2", "3"]\n' + DONE_LINE) != ""


@pytest.mark.parametrize("ending", ["import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n"])
def test_a_module_that_ends_the_process_on_import_fails_its_examples(tmp_path, ending):
    # It printed nothing, which read as "every example holds".
    ws = tmp_path / "ws"
    ws.mkdir()
    source = 'def double(x):\n    """double(2) == 4"""\n    return x + 1\n\n\n' + ending
    (ws / "calc.py").write_text(source)
    box = Toolbox(Workspace.at(ws), list(ALL_TOOLS))
    text = failed_examples(box, {}, {"calc.py": source})
    assert text.startswith("The tests pass, but examples"), text
    assert "double(2) should be 4" in text or "did not run to the end" in text, text
