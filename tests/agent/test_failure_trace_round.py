"""The failing test's calls, traced in the sandbox, in the reading of a failure
(jobs/edit_engine/failure_trace.py, jobs/react/context_first.py): on the scripted model, the real
sandbox and pytest, a real git workspace."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.edit_engine.failure_trace import failure_trace, trace_command
from codeloop.jobs.react.state import AgentLimits

INVENTORY = ('class Inventory:\n    def __init__(self):\n        self._stock = {}\n'
             '        self.history = []\n\n'
             '    def add(self, name, qty):\n        self._stock[name] = self._stock.get(name, 0) + qty\n'
             '        return self._stock[name]\n\n'
             '    def remove(self, name, qty):\n        have = self._stock.get(name, 0)\n'
             '        left = have - qty\n        self.history.append(("remove", name, qty))\n'
             '        return left\n\n'
             '    def count(self, name):\n        return self._stock.get(name, 0)\n')
FIXED = INVENTORY.replace("        left = have - qty\n",
                          "        left = have - qty\n        self._stock[name] = left\n")
TESTS = ("from inventory import Inventory\n\n\ndef test_remove():\n    inv = Inventory()\n"
         "    inv.add('apple', 5)\n    assert inv.remove('apple', 2) == 3\n"
         "    assert inv.count('apple') == 3\n")
REQUEST = "The tests in test_inventory.py fail. Find and fix the bug in inventory.py."
STATE = "    self._stock unchanged: {'apple': 5}"


def _files(repo, inventory=INVENTORY):
    (repo.root / "inventory.py").write_text(inventory)
    (repo.root / "test_inventory.py").write_text(TESTS)


def _whole(text: str) -> str:
    return f"FILE: inventory.py\n```python\n{text}```\n"


def test_the_trace_shows_the_value_that_was_never_stored(repo):
    _files(repo)
    box = agent_spec("single", repo, limits=AgentLimits()).toolbox
    text = failure_trace(box, ["inventory.py"])
    assert "- Inventory.remove(name='apple', qty=2) returned 3" in text
    assert "    its variables at the end: have=5, left=3" in text
    assert STATE in text
    assert "- Inventory.count(name='apple') returned 5" in text
    assert failure_trace(box, ["notes.md"]) == ""


def test_passing_tests_give_no_trace(repo):
    _files(repo, FIXED)
    box = agent_spec("single", repo, limits=AgentLimits()).toolbox
    assert failure_trace(box, ["inventory.py"]) == ""


def test_the_reading_and_the_last_attempt_see_the_trace(repo, store, snapshots):
    _files(repo)
    reading = "remove() never stores the new count."
    llm = scripted(_whole(INVENTORY), _whole(INVENTORY), reading, _whole(FIXED))
    spec = agent_spec("single", repo, limits=AgentLimits())
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="trace")
    result = session.ask(REQUEST)
    assert result.status == "finished", (result.answer, len(llm.calls))
    assert (repo.root / "inventory.py").read_text() == FIXED
    asked, last = (call[-1].content for call in llm.calls[2:])
    assert "What the code did in the failing test test_inventory.py::test_remove" in asked
    assert STATE in asked
    assert reading in last and STATE in last


def test_model_code_run_by_the_tracer_stays_in_the_sandbox(repo):
    """The tracer imports and runs the model's module: in the sandbox. A module that writes
    outside the workspace when the tracer runs it gets nowhere; the trace still comes back."""
    outside = repo.root.parent / "failure-trace-escape.txt"
    evil = ("import sys\nif sys.argv[:1] == ['trace']:\n    try:\n"
            "        open(" + repr(str(outside)) + ", 'w').write('x')\n"
            "    except OSError:\n        pass\n" + INVENTORY)
    _files(repo, evil)
    box = agent_spec("single", repo, limits=AgentLimits()).toolbox
    text = failure_trace(box, ["inventory.py"])
    assert not outside.exists()
    assert STATE in text


def test_a_module_that_forges_a_deeply_nested_trace_does_not_end_the_turn(repo):
    """Imported under the tracer, the model's module swaps the json.dumps the runner prints
    its trace line with, for JSON nested past the recursion limit: the host reads no trace,
    and goes on (json.loads raised RecursionError, which ended the agent's turn)."""
    forged = ("import json, sys\nif sys.argv[:1] == ['trace']:\n"
              "    json.dumps = lambda *args, **kwargs: '[' * 5000\n" + INVENTORY)
    _files(repo, forged)
    box = agent_spec("single", repo, limits=AgentLimits()).toolbox
    outcome = box.run("run_bash_command", {"command": trace_command(["inventory.py"])})
    assert "CODELOOP-TRACE [[[[" in outcome.output  # the forged line did come back
    assert failure_trace(box, ["inventory.py"]) == ""
