"""Multi-agent mode on the scripted model: approved, fixed after review, the implementer's
context-first edit handing over to its tools, and out of rounds."""

from __future__ import annotations

import json

from agent_replies import act, action_prompts, scripted

from codeloop.agent.multi.orchestrator import run_multi_agent
from codeloop.jobs.react.state import AgentLimits

PLAN = {
    "analysis": "A small module with add(a, b) is needed.",
    "files_to_create": ["mathx.py"], "files_to_modify": [],
    "steps": [{"seq": 1, "action": "create", "file": "mathx.py", "details": "add(a, b)"}],
    "considerations": ["keep it simple"],
}
BUGGY = "def add(a, b):\n    return a - b\n"


def report(status="success", created=("mathx.py",), modified=()):
    return act("finish", status=status, files_created=list(created),
               files_modified=list(modified),
               linting_results=[{"file": "mathx.py", "score": 10.0, "notes": "clean"}])


def review(status, issues=(), fix=""):
    return act("finish", status=status, changes_summary="mathx.py created", quality_score=9.0,
               issues=list(issues), fix_instructions=fix)


def _file(path: str, text: str) -> str:
    """A context-first reply: the file whole."""
    return f"FILE: {path}\n```python\n{text}```\n"


NO_FILE = "I am not sure what to change."  # a context-first reply that changes nothing


def test_approved_path(repo, events):
    bus, recorder = events
    llm = scripted(
        act("list_files", path=".", pattern="*"),
        act("finish", **PLAN),
        _file("mathx.py", "def add(a, b):\n    return a + b\n"),
        act("git_status"),
        act("git_diff", path=""),
        review("approved"),
    )
    result = run_multi_agent(llm, repo, "Add mathx.py with add(a, b)", bus=bus)
    assert result.status == "approved" and result.rounds == 1
    assert result.plan.files_to_create == ["mathx.py"]
    # The implementer's one call was the context-first edit: the request and the plan in
    # prose, no tools, no JSON; the file it sent was written and reported as created.
    assert result.implementations[0].status == "success"
    assert result.implementations[0].files_created == ["mathx.py"]
    assert (repo.root / "mathx.py").read_text() == "def add(a, b):\n    return a + b\n"
    direct = llm.calls[4][-1].content
    assert direct.startswith("Add mathx.py with add(a, b)\n\nThe plan:\n- create mathx.py: add(a, b)")
    assert "write_file" not in direct and '"seq"' not in direct and "FILE: path" in direct
    assert result.validations[0].status == "approved"
    assert [e.stage for e in recorder.of_type("stage_start")] == [
        "planning", "implementation", "validation"]
    # The planner's tools are read-only; the validator saw the new file in git.
    planner_prompt = action_prompts(llm)[0][0].content
    assert "write_file" not in planner_prompt and "PLANNER" in planner_prompt
    assert "mathx.py" in llm.calls[-2][-1].content
    assert result.steps == 4 and result.tokens > 0  # list, the direct edit, status, diff


def test_needs_fixes_then_approved(repo):
    llm = scripted(
        act("finish", **PLAN),
        _file("mathx.py", BUGGY),
        act("read_file", path="mathx.py", start_line=None, end_line=None),
        review("needs_fixes", ["add subtracts"], "Make add return a + b."),
        _file("mathx.py", "def add(a, b):\n    return a + b\n"),
        review("approved"),
    )
    result = run_multi_agent(llm, repo, "Add mathx.py with add(a, b)")
    assert result.status == "approved" and result.rounds == 2
    assert [v.status for v in result.validations] == ["needs_fixes", "approved"]
    # The second direct edit is told the reviewer's fixes and shown the file as it is now.
    fix_prompt = next(c[-1].content for c in llm.calls if "asked for fixes" in c[-1].content)
    assert "Make add return a + b." in fix_prompt and "- add subtracts" in fix_prompt
    assert "FILE: mathx.py\n```python\n" + BUGGY in fix_prompt
    assert result.implementations[1].files_modified == ["mathx.py"]
    assert result.implementations[1].files_created == []
    assert (repo.root / "mathx.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_the_direct_edit_gets_each_step_on_one_line_without_a_cut_code_draft(repo):
    plan = {**PLAN, "steps": [{"seq": 1, "action": "create", "file": "mathx.py",
                               "details": "add(a, b) with the code\ndef add(a, b):\n    return a -"}]}
    llm = scripted(act("finish", **plan), _file("mathx.py", "def add(a, b):\n    return a + b\n"),
                   review("approved"))
    result = run_multi_agent(llm, repo, "Add mathx.py with add(a, b)")
    assert result.status == "approved"
    direct = llm.calls[2][-1].content
    assert "- create mathx.py: add(a, b) with the code\n" in direct and "return a -" not in direct


def _buggy_project(repo) -> dict:
    """mathx.py with the bug, a test that shows it; the plan to fix it."""
    (repo.root / "mathx.py").write_text(BUGGY)
    (repo.root / "test_mathx.py").write_text(
        "from mathx import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    return {**PLAN, "files_to_create": [], "files_to_modify": ["mathx.py"],
            "steps": [{"seq": 1, "action": "modify", "file": "mathx.py", "details": "a + b"}]}


def test_a_direct_edit_that_fails_hands_over_to_the_tools(repo):
    plan = _buggy_project(repo)
    llm = scripted(
        act("finish", **plan),
        _file("mathx.py", BUGGY), NO_FILE, NO_FILE,  # three direct attempts, none passes
        act("read_file", path="mathx.py", start_line=None, end_line=None),
        act("edit_file", path="mathx.py", old_text="return a - b", new_text="return a + b"),
        report(created=(), modified=("mathx.py",)),
        review("approved"),
    )
    result = run_multi_agent(llm, repo, "Fix add in mathx.py: the test in test_mathx.py fails")
    assert result.status == "approved"
    assert (repo.root / "mathx.py").read_text() == "def add(a, b):\n    return a + b\n"
    # The tools were told what the direct attempts did and the failing test output.
    handed = next(c for c in action_prompts(llm)
                  if any("A first direct attempt did not finish" in m.content for m in c))
    context = next(m.content for m in handed if "A first direct attempt" in m.content)
    assert "attempt 3 changed no file" in context and "assert -1 == 5" in context
    assert result.implementations[0].files_modified == ["mathx.py"]


def test_out_of_rounds_needs_review(repo):
    replies = [act("finish", **PLAN)]
    for _ in range(3):
        # An implementer that changes nothing: the direct edit sends no file three times,
        # then its first report each round is held back (it claims mathx.py); it reports
        # again and that report goes to the validator.
        replies += [NO_FILE, NO_FILE, NO_FILE, report(), report(status="failed"),
                    review("needs_fixes", ["still wrong"], "Fix it.")]
    llm = scripted(*replies)
    result = run_multi_agent(llm, repo, "Add mathx.py")
    assert result.status == "needs_review" and result.rounds == 3
    assert len(result.validations) == 3 and "needs review" in result.notes[-1]
    assert [r.status for r in result.implementations] == ["failed"] * 3
    held = [call[-1].content for call in action_prompts(llm)
            if call[-1].content.startswith("Not finished yet")]
    assert len(held) == 3
    assert held[0] == ("Not finished yet: the request names mathx.py, which this turn has "
                       "not read or changed; your report lists mathx.py as created or "
                       "modified, but this turn has not changed them. Do that now. If it "
                       "really is not needed, choose finish again and say why.")


def test_a_phase_that_fails_ends_in_needs_review(repo):
    llm = scripted({"raise": "BackendTimeout", "message": "too slow"})
    result = run_multi_agent(llm, repo, "Add mathx.py")
    assert result.status == "needs_review" and result.plan is None
    assert "planner did not finish" in result.notes[0] and "too slow" in result.notes[0]


def test_a_planner_stopped_at_the_step_cap_still_hands_over_its_plan(repo):
    llm = scripted(
        act("list_files", path=".", pattern="*"),
        act("read_file", path="README.md", start_line=None, end_line=None),
        json.dumps(PLAN),  # told to stop, it gives the plan (finish's arguments only)
        _file("mathx.py", "def add(a, b):\n    return a + b\n"),
        review("approved"),
    )
    result = run_multi_agent(llm, repo, "Add mathx.py", limits=AgentLimits(max_steps=2))
    assert result.status == "approved" and result.plan.files_to_create == ["mathx.py"]
    assert "the planner was stopped (step_cap) and gave its output" in result.notes[0]
    assert (repo.root / "mathx.py").is_file()


def test_every_string_and_list_a_phase_outputs_is_bounded():
    # Unbounded, a small model can loop inside one until max_tokens cuts the JSON off.
    from codeloop.agent.multi.schemas import ImplementationReport, Plan, ValidationReport
    from codeloop.jobs.react.actions import strict_model_schema

    def unbounded(node, where="$"):
        if isinstance(node, dict):
            kind = node.get("type")
            if kind == "string" and "maxLength" not in node and "enum" not in node:
                yield where
            if kind == "array" and "maxItems" not in node:
                yield where
            for key, value in node.items():
                yield from unbounded(value, f"{where}.{key}")

    for model in (Plan, ImplementationReport, ValidationReport):
        assert list(unbounded(strict_model_schema(model))) == [], model.__name__


def test_an_approval_while_the_tests_fail_is_sent_back_for_fixes(repo):
    plan = _buggy_project(repo)
    wrong = "def add(a, b):\n    return a * b\n"
    llm = scripted(
        act("finish", **plan),
        _file("mathx.py", wrong), NO_FILE, NO_FILE,  # round 1: the direct edit fails ...
        report(status="partial", created=(), modified=("mathx.py",)),  # ... the tools report
        review("approved"),  # the validator approves: the failing tests say otherwise
        _file("mathx.py", "def add(a, b):\n    return a + b\n"),  # round 2: fixed
        review("approved"),
    )
    result = run_multi_agent(llm, repo, "Fix add in mathx.py: the test in test_mathx.py fails")
    assert result.status == "approved" and result.rounds == 2
    first, second = result.validations
    assert first.status == "needs_fixes" and first.quality_score <= 5.0
    assert first.issues[0].startswith("The project's tests fail: 1 failed")
    assert "FAILED test_mathx.py::test_add" in first.fix_instructions
    assert second.status == "approved"
    assert any("approved while the project's tests fail" in n for n in result.notes)
    # The tools' report names mathx.py, which the direct edit changed in this turn: that is
    # no false claim, so the report is not held back.
    assert not any(c[-1].content.startswith("Not finished yet") for c in llm.calls)
    # The validator saw the test output; the next direct edit was told what to fix.
    validator_prompt = next(c[-1].content for c in llm.calls
                            if c[-1].content.startswith("Request:") and "Implementer's" in
                            c[-1].content)
    assert "(python -m pytest" in validator_prompt and "FAIL:" in validator_prompt
    fix_prompt = next(c[-1].content for c in llm.calls if "asked for fixes" in c[-1].content)
    assert "Make the project's tests pass." in fix_prompt
    assert (repo.root / "mathx.py").read_text() == "def add(a, b):\n    return a + b\n"
