"""TaskAgent: one task on its own branch and worktree, tests first, then code, then the
stack's tests in the sandbox; a fix loop (at most `fix_rounds`) told the concrete failure;
the whole attempt retried (at most `retries` more times, exponential backoff) from a fresh
worktree with the last failure in the request. A plain function of a serialisable unit.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from codeloop.build.repo import add_worktree, branch_name, changed_files
from codeloop.build.runtime import BuildRuntime, BuildStopped
from codeloop.build.stacks import Stack
from codeloop.build.testing import run_tests
from codeloop.build.tools import DONE_SCHEMA, task_toolbox
from codeloop.events import Progress
from codeloop.gitutil import GitError
from codeloop.jobs.agent_run import run_agent
from codeloop.jobs.prompts import prompt_file, render
from codeloop.jobs.react.state import AgentLimits, AgentSpec
from codeloop.llm.base import LLMError
from codeloop.sandbox.types import SandboxUnavailable
from codeloop.tools.base import ToolError
from codeloop.tools.workspace import Workspace

PROMPTS = "codeloop.build"


class Done(BaseModel):
    summary: str


@dataclass(frozen=True)
class TaskUnit:
    """Everything one task needs, as plain data."""

    task: dict[str, Any]
    stack: dict[str, Any]
    repo: str
    worktree: str
    done_tasks: list[str] = field(default_factory=list)  # "T1 (description)" merged so far
    retries: int = 5
    fix_rounds: int = 3
    backoff_seconds: float = 2.0


@dataclass
class TaskOutcome:
    task_id: str
    ok: bool
    branch: str
    summary: str = ""
    reason: str = ""  # why it failed ("" when ok)
    attempts: int = 0
    tokens: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def agent_text(key: str, **values: Any) -> str:
    return render(prompt_file(PROMPTS, "agents")[key], **values).strip()


def agent_spec(role: str, name: str, stack: Stack, workspace: Workspace,
               runtime: BuildRuntime, limits: AgentLimits | None = None, *,
               shell: bool = True) -> AgentSpec:
    """A build agent (`name`: its event stage and commit label, e.g. "task T1"); `shell`:
    may run the stack's tests itself (where the stack says how)."""
    shell = shell and bool(stack.agent_test_command)
    box = task_toolbox(workspace, name, runtime.bus, stage=name, shell=shell)
    system = agent_text("system", role=role, stack_description=stack.description,
                        tools=box.describe(), conventions=stack.conventions.strip(),
                        test_command=stack.agent_test_command if shell else "")
    return AgentSpec(name, system, box, DONE_SCHEMA, limits or runtime.agent_limits)


def test_path(stack: Stack, task: dict[str, Any]) -> str:
    """Where the task's tests go: the stack's test glob with the task's name in it."""
    words = [k for k in task.get("keywords") or [] if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", k)]
    name = words[0].lower() if words else re.sub(r"\W+", "_", task["id"].lower()).strip("_")
    return stack.test_file_glob.replace("*", name or "task")


class _Attempt:
    def __init__(self, unit: TaskUnit, runtime: BuildRuntime) -> None:
        self.unit, self.runtime = unit, runtime
        self.stack = Stack.model_validate(unit.stack)
        self.task = unit.task
        self.id = unit.task["id"]
        self.tree = Path(unit.worktree)
        # In a worker thread, where Ctrl-C never arrives: a stopped build ends the task at
        # the agent's next model call.
        self.llm = runtime.stoppable(runtime.llm_for(f"task:{self.id}"))
        self.tokens = 0

    def say(self, message: str, attempt: int) -> None:
        self.runtime.bus.emit(Progress(done=attempt, total=self.unit.retries + 1,
                                       message=f"{self.id}: {message}"))

    def agent(self, request: str, step: str) -> str:
        ws = Workspace.at(self.tree, shell_timeout=60.0,
                          unsafe_no_sandbox=self.runtime.unsafe_no_sandbox)
        # No shell while writing the tests: their run fails before the code exists, and the
        # loop would then ask for the code in the tests' turn.
        spec = agent_spec("task agent", f"task {self.id}", self.stack, ws, self.runtime,
                          shell=step != "tests")
        run = run_agent(self.llm, spec, request, Done, bus=self.runtime.bus,
                        role=f"{self.id} {step}")
        self.tokens += run.tokens
        return (run.output or {}).get("summary", "") or run.problem

    def run(self, attempt: int, previous: str) -> tuple[bool, str, str]:
        """(passed, summary, failure) of one attempt from a fresh worktree."""
        add_worktree(Path(self.unit.repo), self.tree, branch_name(self.id), self.stack.deps_dirs)
        target = test_path(self.stack, self.task)
        self.say(f"writing tests ({target})", attempt)
        self.agent(agent_text("tests_request", task=self.task, test_path=target,
                              src_dir=self.stack.src_dir, previous=previous,
                              done_tasks="; ".join(self.unit.done_tasks)), "tests")
        tests = [p for p in changed_files(self.tree) if self.stack.is_test_file(p)]
        if not tests:
            return False, "", "no test file was written (tests come first)"
        self.say(f"tests written ({', '.join(tests)}); writing the code", attempt)
        summary = self.agent(agent_text("code_request", task=self.task,
                                        test_files=", ".join(tests),
                                        src_dir=self.stack.src_dir), "code")
        result = run_tests(self.stack, self.tree, bus=self.runtime.bus,
                           unsafe_no_sandbox=self.runtime.unsafe_no_sandbox)
        for fix in range(1, self.unit.fix_rounds + 1):
            if result.passed:
                break
            self.say(f"tests failed ({result.summary}); fix {fix}/{self.unit.fix_rounds}",
                     attempt)
            self.agent(agent_text("fix_request", task=self.task, summary=result.summary,
                                  failure=result.output, src_dir=self.stack.src_dir), "fix")
            result = run_tests(self.stack, self.tree, bus=self.runtime.bus,
                               unsafe_no_sandbox=self.runtime.unsafe_no_sandbox)
        if not result.passed:
            return False, summary, f"tests fail: {result.summary}"
        self.say(f"tests pass ({result.summary})", attempt)
        return True, summary, ""


def run_task(unit: TaskUnit, runtime: BuildRuntime) -> dict[str, Any]:
    """One task to a branch whose tests pass, or the reason it could not; a plain dict."""
    work = _Attempt(unit, runtime)
    failure, attempts = "", 0
    for attempt in range(1, unit.retries + 2):
        if attempt > 1 and not runtime.stop.is_set():
            delay = unit.backoff_seconds * 2 ** (attempt - 2)
            work.say(f"retry {attempt - 1}/{unit.retries} in {delay:g} s ({failure})", attempt)
            runtime.sleep(delay)  # by default a wait that a stop ends at once
        if runtime.stop.is_set():
            failure = failure or "the build was stopped"
            break
        attempts = attempt
        try:
            passed, summary, problem = work.run(attempt, failure)
        except SandboxUnavailable:
            raise  # no sandbox at all: no retry can help; the build stops with the cause
        except BuildStopped:
            failure = failure or "the build was stopped"
            break
        except (LLMError, GitError, ToolError, OSError) as exc:
            passed, summary, problem = False, "", f"{type(exc).__name__}: {exc}"
        if passed:
            return TaskOutcome(work.id, True, branch_name(work.id), summary=summary,
                               attempts=attempt, tokens=work.tokens).as_dict()
        failure = problem
    return TaskOutcome(work.id, False, branch_name(work.id), attempts=attempts,
                       reason=f"{failure} (after {attempts} attempt(s))",
                       tokens=work.tokens).as_dict()
