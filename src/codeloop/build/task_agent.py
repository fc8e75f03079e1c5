"""TaskAgent: one task on its own branch and worktree, tests first (scoped to the task's
contract), then the code through the kit's edit engine, judged by the stack's tests in the
sandbox, at most `fix_rounds` more rounds told the concrete failure (task_attempt.py);
the whole attempt retried (at most `retries` more times, exponential backoff) from a fresh
worktree with the last failure in the request. A plain function of a serialisable unit.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codeloop.build.repo import add_worktree, branch_name
from codeloop.build.runtime import BuildRuntime, BuildStopped
from codeloop.build.stacks import Stack
from codeloop.build.task_attempt import run_attempt
from codeloop.events import Progress
from codeloop.gitutil import GitError
from codeloop.llm.base import LLMError
from codeloop.sandbox.types import SandboxUnavailable
from codeloop.tools.base import ToolError


@dataclass(frozen=True)
class TaskUnit:
    """Everything one task needs, as plain data."""

    task: dict[str, Any]
    stack: dict[str, Any]
    repo: str
    worktree: str
    done_tasks: list[str] = field(default_factory=list)  # "T1 (description)" merged so far
    others: list[dict[str, Any]] = field(default_factory=list)  # the graph's other tasks
    merged: list[str] = field(default_factory=list)  # the ids of those on main
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
        self.detail = ""  # the last attempt's failing output, told to the next one

    def say(self, message: str, attempt: int) -> None:
        self.runtime.bus.emit(Progress(done=attempt, total=self.unit.retries + 1,
                                       message=f"{self.id}: {message}"))

    def run(self, attempt: int, previous: str) -> tuple[bool, str, str]:
        """(passed, summary, failure) of one attempt from a fresh worktree."""
        add_worktree(Path(self.unit.repo), self.tree, branch_name(self.id), self.stack.deps_dirs)
        # the worktree is main as it is now: a task merged since this one started counts as
        # merged (inventory I2's retry at 4e021a9 was told I1, merged four minutes before,
        # was not, and three tests replies were refused for importing I1's model)
        merged = [*self.unit.merged, *sorted(self.runtime.merged_now - set(self.unit.merged))]
        result = run_attempt(self.llm, self.runtime, self.stack, self.task, self.tree,
                             test_path(self.stack, self.task), others=self.unit.others,
                             merged=merged,
                             previous=previous + self.detail if previous else "",
                             fix_rounds=self.unit.fix_rounds,
                             say=lambda message: self.say(message, attempt))
        self.tokens += result.tokens
        self.detail = result.detail
        return result.passed, result.summary, result.failure


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
