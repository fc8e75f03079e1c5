"""One attempt of a task, from a fresh worktree: its contract, its tests (scoped, first),
then its code through the kit's edit engine, judged by the stack's tests in the sandbox.

1. The contract (contract.py): what the task builds, what main holds, what later tasks will.
2. The tests, asked for from it and checked against it before any code is asked for
   (tests_first.py, test_scope.py); written to the task's test path and committed. When
   none stayed within the task, the harness writes the contract as the test (python:
   contract_tests.py).
3. The code, context first (code_step.py): the test file, the modules it imports and the
   task's modules in one prompt; fresh prompts with the concrete failure, at most
   `fix_rounds` + 1 rounds; the stack's tests run by the harness after each.
4. The few task tests the code does not meet are dropped (unmet_tests.py); when that is not
   enough and the code was sent back unchanged as right, one round to repair the tests (not
   when the failure is raised in the task's own code), and the drop again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codeloop.build.code_step import CodeOutcome, code_task, repair_tests
from codeloop.build.contract import task_contract
from codeloop.build.edit_site import StackSite
from codeloop.build.model_smoke import is_models_smoke
from codeloop.build.runtime import BuildRuntime
from codeloop.build.stacks import Stack
from codeloop.build.stated_examples import is_examples_file
from codeloop.build.test_scope import holds_tests
from codeloop.build.tests_first import TestsOutcome, ask_for_tests, dependency_files
from codeloop.build.unmet_tests import drop_unmet_tests
from codeloop.jobs.edit_engine.failing_new_tests import failing_tests
from codeloop.jobs.edit_engine.raised_in import raised_in
from codeloop.llm.base import LLM

FAILURE_TAIL = 600  # characters of the failing run shown to the next attempt's tests
MAX_NOTES = 8  # of the engine's notes shown as progress lines


@dataclass
class AttemptResult:
    passed: bool
    summary: str
    failure: str  # why not ("" when passed), one line
    tokens: int
    detail: str = ""  # the failing output's tail, for the next attempt's prompt


def run_attempt(llm: LLM, runtime: BuildRuntime, stack: Stack, task: dict[str, Any],
                tree: Path, test_path: str, *, others: list[dict[str, Any]],
                merged: list[str], previous: str, fix_rounds: int,
                say: Callable[[str], None]) -> AttemptResult:
    """The attempt on the worktree `tree` (already made from main); see the module."""
    task_id = task["id"]
    label = f"task {task_id}"
    site = StackSite(tree, stack, runtime, label, on_failure=lambda run, n: say(
        f"tests failed ({run.summary}); fix {n}/{fix_rounds}" if n <= fix_rounds
        else f"tests failed ({run.summary})"))
    contract = task_contract(task, others, merged, stack, tree, site.workspace.walk_files(),
                             test_path)
    say(f"writing tests ({test_path})")
    tests = ask_for_tests(llm, contract, task, stack, tree,
                          dependency_files(contract, task, site.read), bus=runtime.bus,
                          stage=label, previous=previous, read=site.read)
    if tests.text is None:
        why = "; ".join(tests.problems[:3]) or "no test file came back"
        return AttemptResult(False, "", f"the tests stay outside the task: {why}",
                             tests.tokens)
    # a helper an earlier task wrote (the sampler beside both the models' smoke and the
    # routes contract) is on main already, as it is: not written again
    refused = next(filter(None, (site.write(path, text)
                                 for path, text in {**tests.helpers,
                                                    test_path: tests.text}.items()
                                 if site.read(path) != text)), None)
    if refused:
        return AttemptResult(False, "", f"the tests could not be written: {refused}",
                             tests.tokens)
    say(f"tests written ({test_path}); writing the code")
    # a retry on the harness's contract asks the same first prompt as the attempt before:
    # sampled, so it is not the same answer
    code = code_task(llm, site, contract, task, test_path, rounds=fix_rounds + 1, stage=label,
                     say=say, harness_tests=tests.by_harness,
                     sample_first=tests.by_harness and bool(previous),
                     trusted=list(tests.helpers))
    # a test of the harness's that still fails says the code is wrong, whatever the model's
    # own tests say: no round goes to repairing those
    trusted_failing = bool(set(failing_tests(code.output)) & set(tests.helpers))
    for note in list(dict.fromkeys(code.notes))[:MAX_NOTES]:  # refused writes, unusable replies
        say(note)
    stands_by = any("back unchanged" in note for note in code.notes)
    why = ("that the code, sent back unchanged twice, does not meet" if stands_by
           else f"that {fix_rounds + 1} rounds of code did not meet")
    # The few failing tests the code could not meet go first (unmet_tests.py): free, where
    # the model's test repair below never once gave a passing file on the 1.5B (17 repair
    # rounds in six benchmark runs, 28-170 s each: echoes, refusals, the reply cap).
    code = _drop_unmet(site, test_path, code, tests, why, say)
    written = {p: site.read(p) for p in code.written}
    repair = not code.passed and stands_by and not tests.by_harness and not trusted_failing \
        and not raised_in(code.output, code.written, written)
    if repair and runtime.test_repairs_unchanged:
        # this build's model left its tests as they were in a repair already: on the 1.5B
        # not one of 18 repair rounds changed a test file into a passing one (stops 64-67),
        # each 28-170 s of the task's time
        say(f"the code was sent back unchanged; no round to fix {test_path}: "
            f"{runtime.test_repairs_unchanged} test repair(s) of this build changed nothing")
    elif repair:
        # The model stands by its code: the test may be what is wrong (one round, in scope);
        # not when the code itself raises (no change to the test mends that).
        say(f"the code was sent back unchanged: one round to fix {test_path} if it is wrong")
        before, test_before = len(code.notes), site.read(test_path)
        code = repair_tests(llm, site, contract, task, test_path, code, stage=label)
        for note in list(dict.fromkeys(code.notes[before:]))[:MAX_NOTES]:
            say(note)  # why the repair was not taken (out of scope, no file)
        if site.read(test_path) == test_before:
            runtime.test_repairs_unchanged += 1
        code = _drop_unmet(site, test_path, code, tests, why, say)
    tokens = tests.tokens + code.tokens
    if code.passed and test_path.endswith(".py") and not any(
            map(holds_tests, map(site.read, [test_path, *filter(
                lambda p: not is_models_smoke(p), tests.helpers)]))):
        # the stack's tests pass, but none of them is this task's: nothing checked its code
        return AttemptResult(False, "", f"{test_path} holds no test: nothing checked the "
                                        "code", tokens)
    if not code.passed:
        # The next attempt's tests are asked for with what failed (a test may be the wrong one).
        tail = code.output.strip()[-FAILURE_TAIL:]
        return AttemptResult(False, "", f"tests fail: {code.summary}", tokens,
                             f"\n```\n{tail}\n```" if tail else "")
    say(f"tests pass ({code.summary})")
    return AttemptResult(True, f"{', '.join(code.written) or 'no file'} written; "
                               f"the tests pass ({code.summary})", "", tokens)


def _drop_unmet(site: StackSite, test_path: str, code: CodeOutcome, tests: TestsOutcome,
                why: str, say: Callable[[str], None]) -> CodeOutcome:
    """`code` passed once the few failing tests it could not meet are dropped; never the
    harness's contract (the 1.5B's bookmarks B3 at a0d1d3c merged once its "routes are
    served" test was dropped as unmet, and the contract's route calls found no route)."""
    if code.passed or tests.by_harness:
        return code
    anchored = any(is_examples_file(p) for p in tests.helpers)
    if anchored:
        why += " while the examples the task states pass"
    dropped = drop_unmet_tests(site, test_path, code.output, say, why, anchored=anchored)
    if not dropped:
        return code
    summary = site.last.summary if site.last else code.summary
    return replace(code, passed=True, summary=summary,
                   notes=[*code.notes, f"dropped tests: {', '.join(dropped)}"])
