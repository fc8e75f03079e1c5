import re

import pytest

from codeloop.quality.lint import LintFinding, LintReport, lint_code, lint_path

FLAWED = '''import os


def scale(values, factor):
    result = []
    for v in values:
        result.append(v * factr)
    return result
'''

CLEAN = '''def scale(values, factor):
    return [value * factor for value in values]
'''


@pytest.fixture(scope="module")
def flawed_report() -> LintReport:
    return lint_code(FLAWED)


def test_pylint_score_is_present_and_sections_are_formatted(flawed_report):
    assert flawed_report.tool_errors == []
    assert flawed_report.pylint_score is not None and 0 <= flawed_report.pylint_score < 10
    lines = flawed_report.format().splitlines()
    assert re.fullmatch(r"Pylint Score: \d+(\.\d+)?/10", lines[0])
    assert lines.index("Errors:") < lines.index("Warnings:") < lines.index("Info:")


def test_undefined_name_lands_in_errors_with_its_line(flawed_report):
    (error,) = flawed_report.errors
    assert (error.line, error.code, error.tool) == (7, "E0602", "pylint")
    assert error.message == "undefined-variable: Undefined variable 'factr'"
    assert "  line 7: E0602 undefined-variable: Undefined variable 'factr'" in (
        flawed_report.format().splitlines())


def test_unused_import_and_argument_are_warnings(flawed_report):
    assert [(w.line, w.code) for w in flawed_report.warnings] == [(1, "W0611"), (4, "W0613")]


def test_ruff_findings_are_present_with_lines(flawed_report):
    found = {(f.code, f.line) for f in flawed_report.ruff}
    assert {("F401", 1), ("F821", 7)} <= found
    assert all(f.tool == "ruff" for f in flawed_report.ruff)
    assert "Ruff:" in flawed_report.format()
    assert not flawed_report.clean


def test_docstring_checks_are_off(flawed_report):
    assert not any(f.code in {"C0114", "C0115", "C0116"} for f in flawed_report.info)


def test_clean_code_scores_ten_with_empty_sections():
    report = lint_code(CLEAN)
    assert report.pylint_score == 10.0
    assert report.clean
    assert report.format() == (
        "Pylint Score: 10.0/10\nErrors:\n  none\nWarnings:\n  none\nInfo:\n  none")


def test_syntax_error_gives_a_result_with_its_line():
    report = lint_code("x = 1\nif x\n    pass\n")
    assert report.syntax_error == "line 2: expected ':'"
    assert report.pylint_score == 0.0
    assert [(f.line, f.code) for f in report.errors] == [(2, "E0001")]
    assert "  line 2: E0001 syntax-error: expected ':'" in report.format()


def test_format_has_the_documented_shape():
    report = LintReport(
        pylint_score=8.5,
        errors=[LintFinding(line=3, code="E0602", tool="pylint",
                            message="undefined-variable: Undefined variable 'x'")],
        info=[LintFinding(line=1, code="C0103", tool="pylint",
                          message="invalid-name: Constant name \"a\" doesn't conform")],
    )
    assert report.format() == (
        "Pylint Score: 8.5/10\n"
        "Errors:\n"
        "  line 3: E0602 undefined-variable: Undefined variable 'x'\n"
        "Warnings:\n"
        "  none\n"
        "Info:\n"
        "  line 1: C0103 invalid-name: Constant name \"a\" doesn't conform"
    )
    assert LintReport(pylint_score=7.25).format().startswith("Pylint Score: 7.25/10\n")
    assert LintReport().format().startswith("Pylint Score: n/a\n")


def test_lint_path_ignores_a_planted_pylintrc(tmp_path):
    # A pylintrc's init-hook runs arbitrary Python, so the workspace's config must never be
    # read; and a file named like a module the tools import (re.py) must not shadow it.
    marker = tmp_path / "hook-ran"
    (tmp_path / "pylintrc").write_text(
        f"[MAIN]\ninit-hook=open({str(marker)!r}, 'w').close()\n")
    target = tmp_path / "re.py"
    target.write_text(f"open({str(marker)!r}, 'w').close()\n")
    report = lint_path(target)
    assert report.filename == "re.py"
    assert report.pylint_score is not None and report.tool_errors == []
    assert not marker.exists()


def test_lint_path_reports_undecodable_bytes_and_missing_files(tmp_path):
    bad = tmp_path / "latin.py"
    bad.write_bytes(b"x = 1\ny = '\xff'\n")
    report = lint_path(bad)
    assert report.syntax_error == "line 2: not valid UTF-8"
    with pytest.raises(FileNotFoundError):
        lint_path(tmp_path / "missing.py")


def test_a_tool_that_times_out_is_reported_not_raised():
    report = lint_code(CLEAN, timeout_s=0.001)
    assert report.pylint_score is None
    assert any(e.startswith("pylint timed out") for e in report.tool_errors)
    assert not report.clean
    assert report.format().startswith("Pylint Score: n/a\n")
    assert "Tool errors:\n  " in report.format()


def test_report_round_trips_through_json(flawed_report):
    assert LintReport.model_validate_json(flawed_report.model_dump_json()) == flawed_report
