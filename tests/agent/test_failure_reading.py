"""The reading of a failure after two unchanged replies (jobs/react/context_first.py,
prompts/diagnose.yaml) with the linter's findings for the files to edit: on the scripted
model, the real linters, the real sandbox and pytest, a real git workspace."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits

ORDERS = ('def new_order(customer, items=[]):\n    return {"customer": customer, '
          '"items": items}\n\n\ndef add_item(order, name):\n    order["items"].append(name)\n'
          '    return order\n')
FIXED = ORDERS.replace("items=[]):\n    return", "items=None):\n    items = [] if items is None "
                       "else items\n    return")
TESTS = ("from orders import add_item, new_order\n\n\ndef test_not_shared():\n"
         "    add_item(new_order('a'), 'x')\n    assert new_order('b')['items'] == []\n")
REQUEST = "The tests in test_orders.py fail. Find and fix the bug in orders.py."


def _whole(text: str) -> str:
    return f"FILE: orders.py\n```python\n{text}```\n"


def test_the_reading_and_the_last_attempt_are_shown_the_linters_findings(repo, store,
                                                                           snapshots):
    (repo.root / "orders.py").write_text(ORDERS)
    (repo.root / "test_orders.py").write_text(TESTS)
    only = ORDERS.split("\n\n\n")[0] + "\n"
    reading = "new_order shares one list between orders."
    llm = scripted(_whole(ORDERS), _whole(only), reading, _whole(FIXED))
    spec = agent_spec("single", repo, limits=AgentLimits())
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="lint")
    result = session.ask(REQUEST)
    assert result.status == "finished" and (repo.root / "orders.py").read_text() == FIXED
    asked, last = (call[-1].content for call in llm.calls[2:])
    assert "The linter's findings in the code (one may be the bug):" in asked
    assert "- orders.py line 1: W0102 dangerous-default-value" in asked
    assert reading + "\nThe linter's findings: orders.py line 1: W0102" in last
    # Only the files to edit are linted: the test file is the specification.
    assert "test_orders.py line" not in asked
