import json

import pytest

from codeloop.quality.security import SecurityReport, scan_code, scan_path

RISKY = '''import subprocess


def run(command):
    subprocess.call(command, shell=True)


def ask():
    return eval(input())
'''

CLEAN = '''def mean(values):
    return sum(values) / len(values) if values else 0.0
'''


@pytest.fixture(scope="module")
def risky_report() -> SecurityReport:
    return scan_code(RISKY)


def _by_test_id(report: SecurityReport, test_id: str):
    matches = [f for f in report.findings if f.test_id == test_id]
    assert len(matches) == 1, report.format()
    return matches[0]


def test_bandit_finds_shell_true_with_line_and_severity(risky_report):
    finding = _by_test_id(risky_report, "B602")
    assert (finding.line, finding.severity, finding.source) == (5, "HIGH", "bandit")
    assert "shell=True" in finding.message


def test_bandit_finds_eval_of_input(risky_report):
    finding = _by_test_id(risky_report, "B307")
    assert (finding.line, finding.severity, finding.confidence) == (9, "MEDIUM", "HIGH")


def test_highest_severity_and_blocking(risky_report):
    assert risky_report.tool_errors == []
    assert risky_report.highest_severity == "HIGH"
    assert risky_report.blocking() and risky_report.blocking("MEDIUM")
    medium_only = scan_code("def ask():\n    return eval(input())\n")
    assert medium_only.highest_severity == "MEDIUM"
    assert not medium_only.blocking("HIGH") and medium_only.blocking("medium")
    with pytest.raises(ValueError, match="unknown severity"):
        medium_only.blocking("SEVERE")


def test_report_formats_and_serialises(risky_report):
    text = risky_report.format()
    assert text.startswith(f"Security: {len(risky_report.findings)} finding(s), "
                           "highest severity HIGH")
    assert "line 5: [HIGH/HIGH] B602" in text
    data = json.loads(risky_report.model_dump_json())
    assert data["highest_severity"] == "HIGH"
    assert SecurityReport.model_validate(data).findings == risky_report.findings


def test_clean_code_has_no_findings():
    report = scan_code(CLEAN)
    assert report.findings == [] and report.tool_errors == []
    assert report.highest_severity is None and not report.blocking("LOW")


def test_asserts_are_not_reported():
    assert scan_code("def f(x):\n    assert x > 0\n    return x\n").findings == []


def test_syntax_error_still_scans_secrets():
    key = "AKIA" + "Q7XK2M9PLR4TWZ3B"
    report = scan_code(f'def broken(:\n    key = "{key}"\n')
    assert report.syntax_error == "line 1: invalid syntax"
    assert [(f.line, f.test_id) for f in report.findings] == [(2, "SECRET-AWS-ACCESS-KEY")]


def test_bandit_password_findings_do_not_echo_the_value():
    value = "hunter" + "2hunter2"
    report = scan_code(f'password = "{value}"\n')
    finding = _by_test_id(report, "B105")
    assert value not in finding.message and "'hunt…'" in finding.message


def test_scan_path_reads_the_file(tmp_path):
    target = tmp_path / "tool.py"
    target.write_text(RISKY)
    report = scan_path(target)
    assert report.filename == "tool.py"
    assert {(f.test_id, f.line) for f in report.findings} >= {("B602", 5), ("B307", 9)}
    with pytest.raises(FileNotFoundError):
        scan_path(tmp_path / "missing.py")
