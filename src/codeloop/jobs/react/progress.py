"""What a turn has got done so far, told to the model after each observation.

Why: a small model does not keep track of its own progress. Measured on the 1.5B model, it
wrote a right file and linted it clean, then kept "improving" it (`a + b` -> `a + b + 1`)
until the step cap: nothing told it that the request was done. So the loop keeps a few
facts per turn (files changed, their last lint, the last test run) and ends each
observation with them and the next move they suggest: lint what changed, run the tests,
or finish.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.jobs.react.prompts import loop_text
from codeloop.jobs.react.state import FileState, Progress, TestsState, new_progress
from codeloop.jobs.request_files import is_test_path
from codeloop.tools import (
    edit_file,
    grep_search,
    lint_file,
    list_files,
    read_file,
    run_bash_command,
    write_file,
)
from codeloop.tools.quality_tools import LINT_CLEAN_LINE
from codeloop.tools.toolbox import ToolOutcome
from codeloop.tools.workspace import Workspace

__all__ = ["new_progress", "progress_note", "record", "unfinished_work", "unread_change",
           "untouched_named_files"]

LINT_TOOL = lint_file.name
SHELL_TOOL = run_bash_command.name
TEST_COMMAND = re.compile(r"\b(pytest|unittest)\b")
EXIT_CODE = re.compile(r"^exit code: (-?\d+)", re.MULTILINE)
NO_TESTS_COLLECTED = "5"  # pytest's exit code when it found no tests: not a failure
TEST_FILE_GLOBS = ("test_*.py", "*_test.py")
MAX_TEST_FILES_SEEN = 200  # enough to know there are tests; a huge tree is not walked

MAX_LOOKED = 8  # the newest looks a read-only agent is reminded of

CHANGING_TOOLS = (edit_file.name, write_file.name)


def unread_change(progress: Progress, tool: str, args: dict[str, Any],
                  workspace: Workspace) -> str:
    """The existing file that `tool` would change although the model has not read (or
    written) it this turn; "" when the change may go ahead. Why: measured on the 1.5B, its
    first move on "add a parameter" or "add a method" was edit_file with old_text made up
    from the request; such edits fail, or change the wrong thing."""
    if tool not in CHANGING_TOOLS:
        return ""
    path = _relative(workspace, args.get("path"))
    if not path or path in progress.get("known", []) or not workspace.is_file(path):
        return ""  # a new file needs no reading; a refused path is the tool's to report
    return path


def record(progress: Progress, outcome: ToolOutcome, args: dict[str, Any],
           mutates_files: bool, workspace: Workspace) -> Progress:
    """The progress after one tool run (a new dict; the state's own is never changed)."""
    files: dict[str, FileState] = dict(progress.get("files", {}))
    tests: TestsState = progress.get("tests", "")
    looked = list(progress.get("looked", []))
    known = list(progress.get("known", []))
    path = _relative(workspace, args.get("path"))
    if outcome.ok and path and path not in known and (mutates_files or outcome.tool == read_file.name):
        known.append(path)
    label = _look_label(outcome.tool, args, path) if outcome.ok and not mutates_files else ""
    if label and label not in looked:
        looked = (looked + [label])[-MAX_LOOKED:]
    if outcome.ok and mutates_files and path:
        files[path] = "changed"
        tests = ""
    elif outcome.ok and outcome.tool == LINT_TOOL and path:
        clean = outcome.output.rstrip().endswith(LINT_CLEAN_LINE)
        files[path] = "lint clean" if clean else "lint problems"
    elif outcome.tool == SHELL_TOOL and TEST_COMMAND.search(str(args.get("command", ""))):
        match = EXIT_CODE.search(outcome.output)
        code = match.group(1) if match else None
        outcomes: dict[str | None, TestsState] = {"0": "passed", NO_TESTS_COLLECTED: "none found"}
        tests = outcomes.get(code, "failed")
    return Progress(files=files, tests=tests, looked=looked, known=known,
                    finish_checked=bool(progress.get("finish_checked")))


# A file name in a request: a path ending in a usual source or text extension.
NAMED_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|md|rst|txt|json|toml|ya?ml"
                        r"|cfg|ini|js|jsx|ts|tsx|html|css|sh|csv))\b")


def untouched_named_files(request: str, progress: Progress) -> list[str]:
    """The files the request names that this turn has neither read nor changed. Why: a
    small model forgets the second half of "add X to a.py and its test to test_a.py"; and
    quoting the whole request back instead made the 0.5B redo its first half ("Create
    add.py ..." read as an order to create it again)."""
    seen = set(progress.get("known", [])) | set(progress.get("files", {}))
    missing: list[str] = []
    for name in NAMED_FILE.findall(request):
        if ".." in name.split("/"):  # outside the workspace: the path guard refuses it
            continue
        if name in missing or any(p == name or p.endswith("/" + name) for p in seen):
            continue
        missing.append(name)
    return missing


def unfinished_work(progress: Progress, request: str, finish_args: dict[str, Any]) -> str:
    """Why a finish looks premature ("" when it does not): files the request names that this
    turn has neither read nor changed, and files a report says it created or modified that
    this turn has not changed. Why: the commonest failure of the 1.5B in the agent benchmark
    was claiming work it had not done (a test file never written, "approved" by the
    validator)."""
    problems = []
    missing = untouched_named_files(request, progress)
    if missing:
        problems.append(f"the request names {', '.join(missing)}, which this turn has not "
                        "read or changed")
    changed = set(progress.get("files", {}))
    claimed = [str(path) for key in ("files_created", "files_modified")
               for path in finish_args.get(key) or [] if isinstance(path, str)]
    unchanged = [path for path in dict.fromkeys(claimed)
                 if not any(p == path or p.endswith("/" + path.lstrip("./")) for p in changed)]
    if unchanged:
        problems.append(f"your report lists {', '.join(unchanged)} as created or modified, "
                        "but this turn has not changed them")
    empty = written_tests_not_collected(progress)
    if empty:
        problems.append(f"pytest collected no tests, and this turn wrote {', '.join(empty)}: "
                        "it needs test functions named test_... at the top level")
    return "; ".join(problems)


def written_tests_not_collected(progress: Progress) -> list[str]:
    """The test files this turn wrote, when the last test run collected no tests at all.
    Why: measured on the 1.5B (write_slugify_tests), a turn wrote a copy of the module under
    test into test_text.py, pytest exited 5, and the loop was told that is not a failure, so
    it finished claiming the tests passed. A test file that holds no test is not done."""
    if progress.get("tests") != "none found":
        return []
    return [p for p in progress.get("files", {}) if is_test_path(p)]


def progress_note(progress: Progress, workspace: Workspace,
                  read_only: bool = False, request: str = "") -> str:
    """The line that ends an observation; "" while the turn has changed nothing (or, for a
    read-only agent such as the planner, looked at nothing)."""
    if read_only:  # its output is the finish itself: say what it has seen, then to finish
        looked = progress.get("looked", [])
        return loop_text("progress_looked", looked="; ".join(looked)) if looked else ""
    files: dict[str, FileState] = progress.get("files", {})
    if not files:
        return ""
    tests = progress.get("tests", "")
    done = [f"{path}: {state}" for path, state in files.items()]
    if tests:
        done.append(f"tests: {tests}")
    to_lint = [p for p, state in files.items() if state == "changed" and p.endswith(".py")]
    to_fix = [p for p, state in files.items() if state == "lint problems"]
    if to_lint:
        step = loop_text("progress_lint", files=", ".join(to_lint))
    elif to_fix:
        step = loop_text("progress_fix_lint", files=", ".join(to_fix))
    elif tests == "failed":
        step = loop_text("progress_fix_tests")
    elif written_tests_not_collected(progress):
        step = loop_text("progress_no_tests",
                         files=", ".join(written_tests_not_collected(progress)))
    elif not tests and _has_tests(workspace):
        step = loop_text("progress_run_tests")
    else:
        step = loop_text("progress_finish",
                         missing=", ".join(untouched_named_files(request, progress)))
    return loop_text("progress", done="; ".join(done), step=step)


def _look_label(tool: str, args: dict[str, Any], path: str) -> str:
    if tool == read_file.name:
        return f"read {path}"
    if tool == list_files.name:
        return f"listed {path or '.'}"
    if tool == grep_search.name:
        return f"searched {args.get('pattern', '')!r}"
    if tool == LINT_TOOL:
        return f"linted {path}"
    if tool == SHELL_TOOL:
        return f"ran `{str(args.get('command', ''))[:60]}`"
    return tool  # git_status, git_diff: the name says it


def _relative(workspace: Workspace, path: Any) -> str:
    if not isinstance(path, str) or not path.strip():
        return ""
    return workspace.rel(path)


def _has_tests(workspace: Workspace) -> bool:
    seen = 0
    for pattern in TEST_FILE_GLOBS:
        for path in workspace.root.rglob(pattern):
            seen += 1
            if ".git" not in path.parts and ".venv" not in path.parts:
                return True
            if seen >= MAX_TEST_FILES_SEEN:
                return False
    return False
