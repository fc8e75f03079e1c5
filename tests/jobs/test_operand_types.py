"""Python's "unsupported operand type(s)" said as what the code must do
(jobs/edit_engine/operand_types.py): the 1.5B's inventory I2 computed with Decimal while its
tests passed floats, in every code round at 48067b3 and 4e021a9."""

from __future__ import annotations

import subprocess
import sys

from codeloop.agent.factory import agent_spec
from codeloop.agent.snapshots import init_repo
from codeloop.jobs import edit_engine
from codeloop.jobs.edit_engine import EditTask, ToolboxSite, run_edit
from codeloop.jobs.edit_engine.operand_types import operand_reading
from codeloop.llm.scripted import ScriptedLLM
from codeloop.tools import Workspace

# the 1.5B's app/pricing.py at 4e021a9 (call 9), and its tests
DECIMAL = ("from decimal import Decimal\n\n\ndef apply_discount(price, percent):\n"
           "    if percent < 0 or percent > 100:\n        raise ValueError('percent')\n"
           "    return price * (1 - Decimal(percent) / 100)\n")
PLAIN = ("def apply_discount(price, percent):\n    if percent < 0 or percent > 100:\n"
         "        raise ValueError('percent')\n    return round(price * (1 - percent / 100), 2)\n")
TESTS = ("from pricing import apply_discount\n\n\ndef test_apply_discount():\n"
         "    assert apply_discount(200.0, 15) == 170.0\n")


def _project(root):
    root.mkdir()
    for name, text in {"pricing.py": DECIMAL, "test_pricing.py": TESTS}.items():
        (root / name).write_text(text)
    return root


def test_a_float_times_a_decimal_in_a_real_run_is_read_as_what_to_do(tmp_path):
    root = _project(tmp_path / "p")
    for style in ("--tb=short", "--tb=long"):
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              style], cwd=root, capture_output=True, text=True, check=False)
        said = operand_reading(run.stdout)
        assert said.startswith("pricing.py combines a float with a Decimal (*), which Python "
                               "refuses: the callers pass plain numbers (float)."), said
        assert "round(value, 2)" in said
    # raised in a test (its call is not the code's to change), or another failure: nothing
    assert operand_reading(run.stdout.replace("pricing.py:", "test_pricing.py:")) == ""
    assert operand_reading("E   assert 1 == 2\n") == ""
    other = ("____ test_a ____\nmod.py:3: in f\n    return a + b\n"
             "E   TypeError: unsupported operand type(s) for +: 'int' and 'str'\n")
    assert operand_reading(other) == ("mod.py applies + to an int and a str, which Python "
                                      "refuses: make both sides the same kind of value "
                                      "before combining them (the types the callers pass "
                                      "are fixed by the tests).")


def test_the_round_after_the_failure_says_it(tmp_path):
    root = _project(tmp_path / "p")
    init_repo(root)
    box = agent_spec("single", Workspace.at(root)).toolbox
    site = ToolboxSite(box, edit_engine.test_command(box.workspace.walk_files()))
    files = {p: box.workspace.read_text(p) for p in ("pricing.py", "test_pricing.py")}
    task = EditTask(request="Make the tests of pricing.py pass.", files=files,
                    edit=["pricing.py"], spec=["test_pricing.py"])
    again = DECIMAL.replace("raise ValueError('percent')", "raise ValueError('bad percent')")
    llm = ScriptedLLM([f"FILE: pricing.py\n```python\n{again}```\n",
                       f"FILE: pricing.py\n```python\n{PLAIN}```\n"])
    result = run_edit(llm, task, site, rounds=3)

    assert result.passed, result.notes
    assert "pricing.py combines a float with a Decimal (*)" in llm.calls[1][-1].content
