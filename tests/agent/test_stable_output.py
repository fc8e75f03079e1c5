"""Test output is made stable before a prompt shows it (jobs/edit_engine/stable_output.py): the same
code gives the same prompt, so a greedy run is repeatable. On the real sandbox and pytest."""

from __future__ import annotations

from codeloop.agent.factory import agent_spec
from codeloop.jobs.edit_engine.context_plan import PYTEST, run_project_tests
from codeloop.jobs.edit_engine.stable_output import stable_output
from codeloop.jobs.react.state import AgentLimits


def test_addresses_temp_dirs_and_durations_are_masked():
    raw = ("E    +    where count = <inv.Inventory object at 0x7fe57c867010>.count\n"
           "E   AssertionError: <function f at 0x10a2b3c4d> is not None\n"
           "FileNotFoundError: /tmp/pytest-of-ann/pytest-12/test_read0/t.txt\n"
           "===== 2 failed, 1 passed, 1 warning in 0.31s =====\n"
           "1 failed in 12s\n")
    assert stable_output(raw) == (
        "E    +    where count = <inv.Inventory object at 0x...>.count\n"
        "E   AssertionError: <function f at 0x...> is not None\n"
        "FileNotFoundError: /tmp/pytest-of-ann/pytest-N/test_read0/t.txt\n"
        "===== 2 failed, 1 passed, 1 warning =====\n"
        "1 failed\n")


def test_the_rest_of_the_output_is_kept_as_it_was():
    kept = ("test_x.py:8: in test_total\n    assert inv.total() == 2\nE   assert 6 == 2\n"
            "x = 0x1F  # a hex literal in the code stays\nran in 3 steps\n")
    assert stable_output(kept) == kept


def test_the_same_failing_code_gives_the_same_test_output_twice(repo):
    (repo.root / "inventory.py").write_text(
        "class Inventory:\n    def count(self):\n        return 5\n")
    (repo.root / "test_inventory.py").write_text(
        "from inventory import Inventory\n\n\ndef test_count(tmp_path):\n"
        "    assert (tmp_path / 'x').exists() or Inventory().count() == 3\n")
    box = agent_spec("single", repo, limits=AgentLimits()).toolbox
    first = run_project_tests(box, PYTEST)
    second = run_project_tests(box, PYTEST)
    assert first[0] is False and "object at 0x..." in first[1]
    assert "pytest-N" in first[1] and "1 failed\n" in first[1] + "\n"
    assert first == second
