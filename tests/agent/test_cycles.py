"""Cycles of moves (jobs/react/cycles.py) and the loop breaking them; test files kept as the
specification while the request asks to fix code (the ReAct tools, --tools-only)."""

from __future__ import annotations

from agent_replies import act, action_prompts, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.cycles import cycle, move
from codeloop.jobs.react.state import AgentLimits

BUGGY = "def half(n):\n    return n // 3\n"
TEST = "from mathutils import half\n\n\ndef test_half():\n    assert half(8) == 4\n"


def _session(llm, repo, store, snapshots, max_steps=20):
    spec = agent_spec("single", repo, limits=AgentLimits(max_steps=max_steps))
    return AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                        thread="c", context_first=False)


def test_cycle_needs_three_rounds_of_one_block_of_two_to_four_moves():
    a, b, c = "edit_file:t.py", "lint_file:t.py", "run_bash_command:pytest"
    assert cycle([a, b, c] * 3) == [a, b, c]
    assert cycle(["read_file:x", a, b] * 3) == ["read_file:x", a, b]
    assert cycle([a, b, c] * 2) is None
    assert cycle([a] * 9) is None  # one repeated action is the repeat detector's
    assert cycle([a, b, c, a, b, a, b, c, a]) is None
    assert move("edit_file", {"path": "t.py", "old_text": "x", "new_text": "y"}) == "edit_file:t.py"


def test_the_third_round_is_broken_with_a_change_of_tack_then_stopped(repo, store, snapshots):
    (repo.root / "mathutils.py").write_text(BUGGY)
    (repo.root / "test_mathutils.py").write_text(TEST)
    rounds = []
    for i in range(3):
        # Each action differs from the last round's (a line, a timeout): no single action
        # repeats, so only the cycle detector can see this.
        rounds += [act("read_file", path="mathutils.py", start_line=1 + i, end_line=None),
                   act("run_bash_command", command="python -m pytest -q", timeout=60 + i)]
    llm = scripted(*rounds,
                   # told it is going round: a different move (read_file is excluded)
                   act("list_files", path=".", pattern="*"),
                   *rounds,
                   finish("I could not find it."))
    result = _session(llm, repo, store, snapshots, max_steps=40).ask(
        "Make the tests in test_mathutils.py pass")
    prompts = action_prompts(llm)
    nudge = prompts[6][-1].content
    assert "gone round the same moves three times" in nudge
    assert "read_file:mathutils.py -> run_bash_command:python -m pytest -q" in nudge
    assert result.status == "loop" and "went round the same moves" in result.answer


def test_an_edit_of_a_test_file_is_refused_while_the_request_asks_for_a_fix(repo, store,
                                                                            snapshots):
    (repo.root / "mathutils.py").write_text(BUGGY)
    (repo.root / "test_mathutils.py").write_text(TEST)
    llm = scripted(
        act("read_file", path="test_mathutils.py", start_line=None, end_line=None),
        act("edit_file", path="test_mathutils.py", old_text="== 4", new_text="== 2"),
        act("read_file", path="mathutils.py", start_line=None, end_line=None),
        act("edit_file", path="mathutils.py", old_text="n // 3", new_text="n // 2"),
        finish("Fixed half."),
    )
    result = _session(llm, repo, store, snapshots).ask(
        "The test in test_mathutils.py fails. Find the bug in mathutils.py and fix it.")
    assert (repo.root / "test_mathutils.py").read_text() == TEST
    assert (repo.root / "mathutils.py").read_text() == BUGGY.replace("// 3", "// 2")
    refused = action_prompts(llm)[2][-1].content
    assert "test_mathutils.py is a test, and the request asks to fix the code" in refused
    assert result.status in ("finished", "step_cap")


def test_a_request_to_change_tests_may_edit_them(repo, store, snapshots):
    (repo.root / "test_mathutils.py").write_text(TEST)
    llm = scripted(
        act("read_file", path="test_mathutils.py", start_line=None, end_line=None),
        act("edit_file", path="test_mathutils.py", old_text="== 4", new_text="== 4  # half"),
        finish("Commented."),
    )
    _session(llm, repo, store, snapshots).ask("Update the test in test_mathutils.py: comment it")
    assert "# half" in (repo.root / "test_mathutils.py").read_text()
