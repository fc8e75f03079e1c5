"""The edit engine's interface: what a job gives it (an EditTask and an EditSite) and what it
gets back (an EditResult). Stable: build's task agents, review's coder and refiner and the
agent's direct edit are written against these names.

- EditTask: the request, the files the prompt shows (to edit, and as specification), the
  files the model may create, and the concrete failure now (test output, review findings).
- EditSite: where the files live. `write` is the only way a file changes (the site guards
  it: path guard, host policy, the job's own rules) and `check` is the harness's verdict on
  the files as they are now (tests in the sandbox, compile and import checks, ...). A site
  may also have `prepare(path, text) -> (text, notes)`: the harness's own change to a
  reply's file before the write, said to the model in the next prompt.
- Check: one verdict, passed or not, with the output the next prompt shows.
- EditResult: the files written, the last check, and what the rounds cost.

ToolboxSite is the site of a job whose files are in a workspace on disk (the agent, build's
task agents): writes through the workspace tools, the project's tests through the sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from codeloop.jobs.edit_engine.context_plan import run_project_tests


@dataclass(frozen=True)
class Check:
    """The harness's verdict: passed, and what it printed (shown to the model when it did
    not pass). `label` names what ran (a test command), "" for a job's own checks."""

    passed: bool
    output: str = ""
    label: str = ""
    score: int | None = None  # tests passing, where the site counts them (keeps the best round)


@dataclass
class EditTask:
    """What the model is asked. `files` holds the text of every file the prompt shows
    (path -> text): those in `edit` may be changed, those in `spec` are the specification
    (tests) and are never written. `new`: files the request asks to create. `failure`: the
    concrete failure now (None: nothing has run yet). `context`: a job's own lines, shown
    after the request (e.g. the other files of the workspace, by name)."""

    request: str
    files: dict[str, str]
    edit: list[str]
    spec: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    failure: Check | None = None
    context: str = ""
    protect_tests: bool = True  # a test file is never written (the tests are the spec)
    whole_files: bool = False  # ask for whole files even where a long file gets blocks
    # spec files the harness wrote, right by construction (build: the task's stated examples,
    # its routes contract): one failing means the code is wrong whoever wrote the other tests
    trusted: list[str] = field(default_factory=list)
    # a cap on a reply's tokens below the prompt's own: a reply far longer than the files it
    # edits is one repeating its lines until the limit (build's test repair, the 1.5B)
    max_tokens: int | None = None


class EditSite(Protocol):
    """Where the files live and how they are judged."""

    def write(self, path: str, text: str) -> str | None:
        """Write `text` to `path`: None when written, else why it was refused (one line)."""
        ...

    def check(self) -> Check | None:
        """The harness's verdict on the files as they are now; None: nothing to run."""
        ...


@dataclass
class EditResult:
    """What `run_edit` did. `files`: every file written ({path: its text now}); `passed`:
    the last check passed (or, with nothing to run, some file was written); `notes`: what
    went wrong on the way (refused writes, unusable replies, echoes), as said to the model."""

    files: dict[str, str]
    passed: bool
    check: Check | None
    rounds: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # each round's user message, as sent
    replies: list[str] = field(default_factory=list)  # each round's reply, as received

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ToolboxSite:
    """A workspace on disk through an agent toolbox (tools/): `write_file` (path guard, host
    policy, events) for writes, the project's tests through `run_bash_command` (the
    sandbox) for checks. `command`: the test command (None: nothing to run)."""

    def __init__(self, box, command: str | None) -> None:
        self.box, self.command = box, command

    def write(self, path: str, text: str) -> str | None:
        outcome = self.box.run("write_file", {"path": path, "content": text})
        return None if outcome.ok else f"{path}: {outcome.output}"

    def check(self) -> Check | None:
        if not self.command:
            return None
        passed, output = run_project_tests(self.box, self.command)
        return Check(passed, output, self.command)
