"""`assert f(x) == pytest.raises(E)` in a task's tests becomes `with pytest.raises(E): f(x)`
(build/raises_blocks.py): inventory I2's tests at 48067b3 failed on right code because of it."""

from __future__ import annotations

import subprocess
import sys

from codeloop.build.raises_blocks import with_raises_blocks

# the 1.5B's tests for I2 (build benchmark at 48067b3), as written
TESTS = '''import pytest
from pricing import line_total, apply_discount

def test_line_total():
    assert line_total(10, 20) == 200.0

def test_apply_discount():
    assert apply_discount(200.0, 15) == 170.0
    assert apply_discount(100.0, 101) == pytest.raises(ValueError)
    assert apply_discount(100.0, -1) == pytest.raises(ValueError)
'''
RIGHT = '''def line_total(quantity, price):
    return round(quantity * price, 2)


def apply_discount(price, percent):
    if percent < 0 or percent > 100:
        raise ValueError("percent must be between 0 and 100")
    return round(price * (1 - percent / 100), 2)
'''
WRONG = RIGHT.replace('        raise ValueError("percent must be between 0 and 100")\n',
                      "        return price\n")


def _pytest(tmp_path, tests: str, code: str) -> subprocess.CompletedProcess:
    (tmp_path / "pricing.py").write_text(code)
    (tmp_path / "test_pricing.py").write_text(tests)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_pricing.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_comparison_becomes_a_raises_block_that_right_code_passes(tmp_path):
    assert _pytest(tmp_path, TESTS, RIGHT).returncode == 1  # as written: never passes
    mended, notes = with_raises_blocks(TESTS)
    assert notes == [f"line {n}: `assert ... == pytest.raises(ValueError)` is now "
                     "`with pytest.raises(ValueError):` (a call compared to it never passes)"
                     for n in (9, 10)]
    assert "    with pytest.raises(ValueError):\n        apply_discount(100.0, 101)\n" in mended
    assert "    assert apply_discount(200.0, 15) == 170.0\n" in mended
    assert _pytest(tmp_path, mended, RIGHT).returncode == 0
    # and it still tells wrong code apart: no ValueError, the test fails
    wrong = _pytest(tmp_path, mended, WRONG)
    assert wrong.returncode == 1 and "DID NOT RAISE" in wrong.stdout


def test_what_is_no_such_comparison_is_left_alone():
    kept = ("import pytest\n\ndef test_a():\n    assert pytest.raises(ValueError, int, 'x')\n"
            "    with pytest.raises(ValueError):\n        int('x')\n"
            "    assert 1 == 1\n    x = 1; assert f(x) == pytest.raises(E)\n")
    assert with_raises_blocks(kept) == (kept, [])
    assert with_raises_blocks("def (:\n") == ("def (:\n", [])


def test_raises_on_either_side_and_with_match():
    text = ("def test_a():\n    assert pytest.raises(KeyError, match='k') == lookup({}, 'k')\n")
    mended, notes = with_raises_blocks(text)
    assert mended == ("def test_a():\n    with pytest.raises(KeyError, match='k'):\n"
                      "        lookup({}, 'k')\n")
    assert len(notes) == 1
