"""Full single-agent sessions on the scripted model in temporary git repositories."""

from __future__ import annotations

from agent_replies import act, action_prompts, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits

FACTORIAL = "def factorial(n):\n    return 1 if n <= 1 else n * factorial(n - 1)\n"


def _session(llm, repo, store, snapshots, bus=None, limits=None, thread="t1"):
    spec = agent_spec("single", repo, limits=limits or AgentLimits(), bus=bus)
    return AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                        thread=thread, bus=bus, context_first=False)


def test_create_read_and_summarise_changes(repo, store, snapshots, events):
    bus, recorder = events
    llm = scripted(
        act("write_file", path="factorial.py", content=FACTORIAL, start_line=None, end_line=None),
        act("lint_file", path="factorial.py"),
        act("read_file", path="factorial.py", start_line=None, end_line=None),
        finish("Created factorial.py with factorial(n)."),
    )
    result = _session(llm, repo, store, snapshots, bus).ask("Create factorial.py")
    assert result.status == "finished" and result.steps == 3
    assert result.answer == "Created factorial.py with factorial(n)."
    assert (repo.root / "factorial.py").read_text() == FACTORIAL
    assert [(c.path, c.status, c.added_lines) for c in result.changes] == [
        ("factorial.py", "added", 2)]
    # The model saw each observation: the lint report and the numbered file.
    last_prompt = action_prompts(llm)[-1][-1].content
    assert "    1| def factorial(n):" in last_prompt
    assert any("Pylint Score:" in m.content for m in action_prompts(llm)[-1])
    assert [e.tool for e in recorder.of_type("tool_call")] == [
        "write_file", "lint_file", "read_file"]
    assert recorder.of_type("llm_call") and recorder.of_type("progress")
    assert result.tokens > 0


def test_edit_paths_exact_tolerant_failed_then_retry(repo, store, snapshots):
    (repo.root / "calc.py").write_text("class Calc:\n    def add(self, a, b):\n        return a - b\n")
    llm = scripted(
        act("read_file", path="calc.py", start_line=None, end_line=None),
        act("edit_file", path="calc.py", old_text="def add(self, x, y):\n    return x - y",
            new_text="def add(self, a, b):\n    return a + b"),
        # after seeing the candidates, the model copies the real text (wrong indentation)
        act("edit_file", path="calc.py", old_text="def add(self, a, b):\n    return a - b",
            new_text="def add(self, a, b):\n    return a + b"),
        finish("Fixed add."),
    )
    result = _session(llm, repo, store, snapshots).ask("Fix add in calc.py")
    assert result.status == "finished"
    assert (repo.root / "calc.py").read_text() == (
        "class Calc:\n    def add(self, a, b):\n        return a + b\n")
    failed_observation = action_prompts(llm)[2][-1].content
    assert "no change made" in failed_observation and "lines 2-3" in failed_observation


def test_lint_and_fix_loop(repo, store, snapshots):
    llm = scripted(
        act("write_file", path="util.py", content="import os\n\n\ndef double(x):\n    return y * 2\n",
            start_line=None, end_line=None),
        act("lint_file", path="util.py"),
        act("edit_file", path="util.py", old_text="import os\n\n\n", new_text=""),
        act("edit_file", path="util.py", old_text="return y * 2", new_text="return x * 2"),
        act("lint_file", path="util.py"),
        finish("util.py is clean."),
    )
    result = _session(llm, repo, store, snapshots).ask("Write util.py with double(x)")
    assert result.status == "finished"
    prompts = action_prompts(llm)
    first_lint, second_lint = prompts[2][-1].content, prompts[5][-1].content
    assert "undefined-variable" in first_lint and "unused-import" in first_lint
    assert "Pylint Score: 10.0/10" in second_lint and "undefined-variable" not in second_lint
    assert (repo.root / "util.py").read_text() == "def double(x):\n    return x * 2\n"


def test_path_escape_is_refused_and_the_loop_goes_on(repo, store, snapshots, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    llm = scripted(
        act("read_file", path="../secret.txt", start_line=None, end_line=None),
        act("write_file", path=str(outside), content="pwned", start_line=None, end_line=None),
        finish("I cannot access files outside the project."),
    )
    result = _session(llm, repo, store, snapshots).ask("Show me ../secret.txt")
    assert result.status == "finished" and result.steps == 2
    prompts = action_prompts(llm)
    assert "refused" in prompts[1][-1].content and "refused" in prompts[2][-1].content
    assert outside.read_text() == "top secret"


def test_repeated_action_is_flagged_then_forced_to_change(repo, store, snapshots):
    same = act("list_files", path=".", pattern="*")
    llm = scripted(same, same, same, finish("The project only has a README."))
    result = _session(llm, repo, store, snapshots).ask("What files are there?")
    assert result.status == "finished" and result.answer == "The project only has a README."
    second_observation = action_prompts(llm)[2][-1].content
    assert "already ran list_files with exactly these arguments" in second_observation
    forced_prompt = action_prompts(llm)[3][-1].content
    assert "three times" in forced_prompt and "DIFFERENT" in forced_prompt


def test_loop_stops_with_an_explanation_when_the_model_insists(repo, store, snapshots):
    same = act("list_files", path=".", pattern="*")
    llm = scripted(same, same, same, same)  # even asked for a change, it repeats
    result = _session(llm, repo, store, snapshots).ask("List files")
    assert result.status == "loop"
    assert "kept repeating the same action (list_files" in result.answer


def test_step_cap_still_gets_the_models_account_of_the_turn(repo, store, snapshots):
    steps = [act("list_files", path=".", pattern=f"*{i}") for i in range(2)]
    llm = scripted(*steps, '{"answer": "I looked around but wrote nothing yet."}')
    result = _session(llm, repo, store, snapshots, limits=AgentLimits(max_steps=2)).ask("go")
    assert result.status == "step_cap" and result.steps == 2
    assert result.answer == ("Stopped: reached the step cap (2 steps) before the task was "
                             "finished.\nI looked around but wrote nothing yet.")
    # The last observation and the stop note, joined in one user message (roles alternate).
    last = llm.calls[-1][-1]
    assert last.role == "user" and llm.calls[-1][-2].role == "assistant"
    assert last.content.index("Observation (list_files)") < last.content.index("No more tools")
    assert llm.remaining == 0


def test_step_cap_and_token_budget_are_reported(repo, store, snapshots):
    replies = [act("read_file", path="README.md", start_line=i, end_line=i) for i in (1, 1)]
    llm = scripted(*[act("list_files", path=".", pattern=f"*{i}") for i in range(5)])
    result = _session(llm, repo, store, snapshots, limits=AgentLimits(max_steps=3)).ask("go")
    assert result.status == "step_cap" and result.steps == 3
    assert "step cap (3 steps)" in result.answer
    llm = scripted(*replies)
    result = _session(llm, repo, store, snapshots, limits=AgentLimits(token_budget=10),
                      thread="t2").ask("go")
    assert result.status == "token_budget" and "token budget of 10" in result.answer


def test_invalid_reply_becomes_an_observation(repo, store, snapshots):
    llm = scripted(
        act("read_file", "x", path="a"),  # start_line and end_line are missing
        finish("ok"),
    )
    result = _session(llm, repo, store, snapshots).ask("go")
    assert result.status == "finished"
    assert "not a valid action" in action_prompts(llm)[1][-1].content


def test_model_failure_stops_the_turn_cleanly(repo, store, snapshots):
    llm = scripted({"raise": "BackendUnreachable", "message": "server down"})
    result = _session(llm, repo, store, snapshots).ask("go")
    assert result.status == "error" and "server down" in result.answer


def test_bash_tool_in_a_session(repo, store, snapshots):
    (repo.root / "test_ok.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    llm = scripted(act("run_bash_command", command="python -m pytest -q", timeout=None),
                   finish("Tests pass."))
    result = _session(llm, repo, store, snapshots).ask("Run the tests")
    assert result.status == "finished" and "1 passed" in action_prompts(llm)[1][-1].content
