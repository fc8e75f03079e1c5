"""Docstring examples of the changed functions as checks after the tests pass
(jobs/edit_engine/docstring_checks.py in jobs/react/context_first.py): on the scripted model, with
the real sandbox running the checks, real pytest and a real git workspace."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits

RECEIPT = ('def format_amount(cents: int) -> str:\n'
           '    """cents as money: 1205 -> \'12.05\', 7 -> \'0.07\', -250 -> \'-2.50\'."""\n'
           '    return f"{cents // 100}.{cents % 100}"\n')
TESTS = ("from receipt import format_amount\n\n\ndef test_amount():\n"
         "    assert format_amount(1205) == '12.05'\n    assert format_amount(7) == '0.07'\n")
REQUEST = "The tests in test_receipt.py fail. Find and fix the bug in receipt.py."
HALF = RECEIPT.replace("{cents % 100}", "{cents % 100:02d}")  # wrong for negative amounts
FIXED = RECEIPT.replace('return f"{cents // 100}.{cents % 100}"',
                        'sign = "-" if cents < 0 else ""\n'
                        '    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"')


def _ask(llm, repo, store, snapshots):
    (repo.root / "receipt.py").write_text(RECEIPT)
    (repo.root / "test_receipt.py").write_text(TESTS)
    spec = agent_spec("single", repo, limits=AgentLimits())
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="doc")
    return session.ask(REQUEST)


def _whole(text: str) -> str:
    return f"FILE: receipt.py\n```python\n{text}```\n"


def test_a_fix_that_breaks_a_docstring_example_gets_another_round(repo, store, snapshots):
    llm = scripted(_whole(HALF), _whole(FIXED))
    result = _ask(llm, repo, store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert (repo.root / "receipt.py").read_text() == FIXED
    second = llm.calls[1][-1].content
    assert ("- format_amount(-250) should be '-2.50' (its docstring says so); it gives "
            "'-3.50'") in second
    assert "format_amount(1205)" not in second.split("do not hold")[1].split("```")[0]


def test_when_no_round_makes_the_examples_hold_the_edit_that_passed_the_tests_stays(
        repo, store, snapshots):
    broken = RECEIPT.replace("cents // 100", "cents // 10")
    llm = scripted(_whole(HALF), _whole(broken), _whole(broken.replace("// 10", "// 1")))
    result = _ask(llm, repo, store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert len(llm.calls) == 3  # no tools after: a tested edit was there
    assert (repo.root / "receipt.py").read_text() == HALF


def test_a_model_written_module_cannot_forge_a_pass_on_the_host(repo, store, snapshots):
    """The checks import the model's module: they run in the sandbox. A module that writes
    a file outside the workspace on import gets nowhere."""
    outside = repo.root.parent / "docstring-check-escape.txt"
    # Only when imported by the checks' runner (argv[0] 'checks'), not by pytest.
    evil = ("import sys\nif sys.argv[:1] == ['checks']:\n"
            "    open(" + repr(str(outside)) + ", 'w').write('x')\n" + HALF)
    llm = scripted(_whole(evil), _whole(FIXED))
    _ask(llm, repo, store, snapshots)
    assert not outside.exists()
    assert "(its docstring says so)" in llm.calls[1][-1].content  # the runner did import it


def test_examples_that_fail_at_the_last_attempt_still_get_their_rounds(repo, store, snapshots):
    """Found at attempt 3 of 3, the examples get two rounds of their own; a reply that sends
    the file back is followed by a sampled one (greedy would send it back again)."""
    broken = RECEIPT.replace("cents // 100", "cents // 10")
    llm = scripted(_whole(broken), _whole(broken.replace("// 10", "// 1")), _whole(HALF),
                   _whole(HALF), _whole(FIXED))
    result = _ask(llm, repo, store, snapshots)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert len(llm.calls) == 5
    assert llm.temperatures[3] == 0.0 and llm.temperatures[4] > 0.0
    assert "attempt 4 sent receipt.py back unchanged" in llm.calls[4][-1].content
    assert (repo.root / "receipt.py").read_text() == FIXED
