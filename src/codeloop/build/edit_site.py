"""Where build's edits land, for the kit's edit engine (jobs/edit_engine): a worktree (a
task's, or main for integration and merges) written through the task toolbox's write_file
(path guard, host policy, a ToolCall event, and a commit of exactly that path on the
branch), judged by the stack's own test command in the sandbox on a throw-away copy
(testing.run_tests)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codeloop.build.library_mends import pydantic2_mended
from codeloop.build.runtime import BuildRuntime
from codeloop.build.stacks import Stack
from codeloop.build.testing import TestRun, run_tests
from codeloop.build.tools import task_toolbox
from codeloop.jobs.edit_engine.api import Check
from codeloop.sandbox.pathguard import PathRefused
from codeloop.tools.base import ToolError
from codeloop.tools.workspace import Workspace


class StackSite:
    """An EditSite on `tree`: writes committed with `label`, checks by the stack's tests."""

    def __init__(self, tree: Path, stack: Stack, runtime: BuildRuntime, label: str,
                 on_failure: Callable[[TestRun, int], None] | None = None) -> None:
        """`on_failure(run, n)`: told of the n-th failing test run (a progress line)."""
        self.tree, self.stack, self.runtime = tree, stack, runtime
        self.on_failure, self.failures = on_failure, 0
        workspace = Workspace.at(tree, unsafe_no_sandbox=runtime.unsafe_no_sandbox)
        self.box = task_toolbox(workspace, label, runtime.bus, stage=label)
        self.last: TestRun | None = None  # the last test run, with its one-line summary

    @property
    def workspace(self) -> Workspace:
        return self.box.workspace

    def prepare(self, path: str, text: str) -> tuple[str, list[str]]:
        """The stack's library mends (library_mends.py) on a file before it is written."""
        notes: list[str] = []
        if "pydantic2" in self.stack.code_mends:
            text, notes = pydantic2_mended(path, text)
        return text, notes

    def write(self, path: str, text: str) -> str | None:
        outcome = self.box.run("write_file", {"path": path, "content": text})
        return None if outcome.ok else f"{path}: {outcome.output}"

    def check(self) -> Check:
        self.last = run_tests(self.stack, self.tree, bus=self.runtime.bus,
                              unsafe_no_sandbox=self.runtime.unsafe_no_sandbox)
        if not self.last.passed:
            self.failures += 1
            if self.on_failure is not None:
                self.on_failure(self.last, self.failures)
        return Check(self.last.passed, self.last.output, self.label,
                     score=self.last.counts[0] if not self.last.counts[2] else 0)

    @property
    def label(self) -> str:
        """The test command, as the prompt names it."""
        return self.stack.agent_test_command or " ".join(self.stack.test_command)

    def read(self, path: str) -> str | None:
        """A file's text, or None (missing, unreadable, refused by the path guard)."""
        try:
            return self.workspace.read_text(path)
        except (ToolError, PathRefused, OSError, UnicodeDecodeError):
            return None
