"""The reviewer's lint lines come from the quality toolkit's ruff run (quality/lint.py):
one place decides the rules and reads ruff's report."""

from codeloop.review.checks import ruff_findings

FLAWED = "import os\n\n\ndef scale(values):\n    return [v * factr for v in values]\n"


def test_findings_name_the_path_line_and_code():
    lines = ruff_findings("pkg/scale.py", FLAWED)
    assert "pkg/scale.py:1: F401 `os` imported but unused" in lines
    assert any(line.startswith("pkg/scale.py:5: F821 ") and "factr" in line for line in lines)


def test_clean_and_non_python_files_give_nothing():
    assert ruff_findings("pkg/ok.py", "def double(x):\n    return 2 * x\n") == ()
    assert ruff_findings("notes.txt", "import os\n") == ()


def test_code_that_does_not_parse_gives_its_syntax_error():
    (line,) = ruff_findings("bad.py", "def f(:\n    pass\n")
    assert line.startswith("bad.py:1: E0001 syntax-error: ")
