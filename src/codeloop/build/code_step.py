"""The task's code, context first, on the kit's edit engine (jobs/edit_engine).

One prompt holds the task, its test file (the specification: never written), the project
modules the tests import (on main, or the task's own once written) and the modules the task
builds; the model answers with whole files (or functions, SEARCH/REPLACE for long ones), the
engine merges and writes them through the task's site (edit_site.py: path guard, host
policy, one commit per path on the branch) and the harness runs the stack's tests in the
sandbox; a fresh prompt with the concrete failure each round, at most `rounds`.

Measured on the 1.5B: the tool-first task agent this replaces spent 402k prompt tokens on the
todo graph's first task and merged nothing; it is not kept as a fallback (a tool loop after
the engine's rounds spent its budget re-reading the same files).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from codeloop.build.contract import TaskContract, module_of, task_text
from codeloop.build.edit_site import StackSite
from codeloop.build.fixture_requests import with_requested_fixtures
from codeloop.build.fresh_reads import WithoutWrongReads
from codeloop.build.missing_ids import with_unused_missing_ids
from codeloop.build.module_api import module_api
from codeloop.build.own_classes import NoRedefinitions
from codeloop.build.raises_blocks import with_raises_blocks
from codeloop.build.stacks import Stack
from codeloop.build.test_scope import project_modules, scope_problems
from codeloop.jobs.edit_engine.api import Check, EditResult, EditTask
from codeloop.jobs.edit_engine.missing_field import missing_field_reading
from codeloop.jobs.edit_engine.rounds import run_edit
from codeloop.jobs.prompts import prompt_file, render
from codeloop.jobs.request_files import local_imports
from codeloop.llm.base import LLM

_JS_IMPORT = re.compile(r"""(?:\bfrom\s+|\brequire\(\s*|\bimport\s+)['"](\.{1,2}/[^'"]+)['"]""")
SHOWN_CHARS = 16_000  # the project modules shown beside the test; beyond: named only


@dataclass
class CodeOutcome:
    passed: bool
    summary: str  # the last test run's one line
    output: str  # its tail, when it failed
    tokens: int = 0
    written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def request_text(key: str, **values: Any) -> str:
    return render(prompt_file("codeloop.build", "engine")[key], **values).strip()


def code_task(llm: LLM, site: StackSite, contract: TaskContract, task: dict[str, Any],
              test_path: str, *, rounds: int, stage: str,
              say: Callable[[str], None] | None = None, harness_tests: bool = False,
              sample_first: bool = False, trusted: list[str] | None = None) -> CodeOutcome:
    """The code of `task` until its tests (and the project's) pass, at most `rounds`.

    `harness_tests`: the test file is the harness's contract (contract_tests.py), right by
    construction, so code sent back unchanged twice gets the engine's blanked round (the
    functions the failure calls asked anew), not the end of the rounds that leaves the
    model's own tests to be repaired. `sample_first`: the first prompt is sampled (a retry
    whose prompt is the last attempt's: the contract, as before, gets the same greedy answer;
    bookmarks' B3 on the 1.5B sent the same routes in three attempts, 285 tokens each).
    `trusted`: the harness's test files beside the model's (the task's stated examples, its
    routes contract): when one fails, code sent back unchanged twice gets the blanked round
    too (EditTask.trusted; shortener's S1 kept `encode(0) == ''` against the stated
    `encode(0) == '0'`, and the rounds ended as if its own tests were wrong)."""
    files = site.workspace.walk_files()
    test_text = site.read(test_path) or ""
    imported = [p for p in local_imports(test_text, test_path, files + contract.modules)
                if p != test_path and not p.startswith("tests/")]
    imported += [p for p in project_modules(test_text, contract) + _js_imports(
        test_text, test_path, files) if p not in imported]
    # A task whose text names no module builds the ones its tests import (not the guess).
    own = contract.modules if contract.modules_named or not any(
        p not in files for p in imported) else []
    # The entry point is for the tasks that serve HTTP (and the integration): the 1.5B's tests
    # of a data model imported app.main, which put it in every code prompt of that task.
    entry = site.stack.entry_point
    if not contract.serves_http and entry in files and entry not in own:
        imported = [p for p in imported if p != entry]
    edit = list(dict.fromkeys([*own, *imported]))
    # What main holds that the task does not build (an earlier task's module, the scaffold's
    # package file) is shown read only: the 1.5B's shortener S4 at f6b8a6d was offered six
    # files, rewrote five of them in each reply (0.8 minutes a round), and lost rounds to
    # replies that held no usable file. The entry point stays editable for a task that
    # serves HTTP (its router is included there); a task with nothing else left to write
    # keeps them all.
    on_main = [p for p in edit if p in files and p not in own
               and not (contract.serves_http and p == entry)]
    if len(on_main) == len(edit):
        on_main = []
    shown: dict[str, str] = {test_path: test_text}
    total = len(test_text)
    for path in edit:
        text = site.read(path) if path in files else None
        if text is not None and total + len(text) <= SHOWN_CHARS:
            shown[path] = text
            total += len(text)
    request = request_text("code", task=task, test_path=test_path,
                           modules=[module_of(p) for p in own or
                                    [p for p in imported if p not in files]])
    edit_task = EditTask(request=request, files=shown,
                         edit=[p for p in edit if p in shown and p not in on_main],
                         spec=[test_path, *(p for p in on_main if p in shown)],
                         new=[p for p in edit if p not in files],
                         trusted=list(trusted or []),
                         # the stack's notes are context, not the request: the request
                         # rules would ask for every name they show
                         context="\n\n".join(filter(None, [
                             _notes(site.stack, task_text(task), shown),
                             _context(contract, shown, site.read)])))
    edit_site: Any = NoRedefinitions(site, contract, site.read)
    if not harness_tests:  # the harness's contract is right by construction
        edit_site = WithoutWrongReads(edit_site, site, test_path, own or contract.modules,
                                      say)
    result: EditResult = run_edit(llm, edit_task, edit_site, rounds=rounds,
                                  bus=site.runtime.bus, stage=stage, say=say,
                                  sample_first=sample_first,
                                  after_two_echoes="read" if harness_tests else "restart")
    last = site.last
    return CodeOutcome(passed=result.passed and bool(last and last.passed),
                       summary=last.summary if last else "the tests did not run",
                       output=last.output if last else "", tokens=result.tokens,
                       written=sorted(result.files), notes=result.notes)


def _js_imports(source: str, test_path: str, files: list[str]) -> list[str]:
    """The project files a JavaScript test imports by a relative path (`from './Counter.jsx'`,
    `require('../src/total')`), existing or not (without an extension: the existing file,
    else the test's own kind: .jsx for a .jsx test, whose component holds JSX that Vite
    refuses in a .js file; else .js)."""
    found: list[str] = []
    default = ".jsx" if test_path.endswith(".jsx") else ".js"
    folder = PurePosixPath(test_path).parent
    for match in _JS_IMPORT.finditer(source):
        parts: list[str] = []
        for part in (folder / match.group(1)).parts:
            if part == "..":
                if not parts:
                    break
                parts.pop()
            elif part != ".":
                parts.append(part)
        else:
            path = "/".join(parts)
            if not PurePosixPath(path).suffix:
                path = next((path + ext for ext in (".js", ".jsx", "/index.js")
                             if path + ext in files), path + default)
            found.append(path)
    return list(dict.fromkeys(found))


def _notes(stack: Stack, text: str, shown: dict[str, str]) -> str:
    """The stack's notes on its libraries, when the task's text or the files shown mention
    one of their words (code_notes_when)."""
    words = [w.lower() for w in stack.code_notes_when]
    seen = " ".join([text, *shown.values()]).lower()
    return stack.code_notes.strip() if not words or any(w in seen for w in words) else ""


def _context(contract: TaskContract, shown: dict[str, str],
             read: Callable[[str], str | None]) -> str:
    """What main holds besides the files shown: each module's classes (fields, methods),
    functions and instances, by signature (module_api.py), so that the code calls what
    exists; a module that is not Python, or does not parse, by its names."""
    lines = []
    for path, names in sorted(contract.built.items()):
        if not names or path.startswith("tests/") or path in shown:
            continue
        api = module_api(read(path) or "") if path.endswith(".py") else []
        lines.append(f"- {module_of(path)}:" + "".join(f"\n    {line}" for line in api)
                     if api else f"- {module_of(path)}: {', '.join(names)}")
    return ("Other modules in the project (import from them as needed; call only what they "
            "define):\n" + "\n".join(lines)) if lines else ""


class _ScopedTests:
    """The site of a test repair: only the test file may change, and only to a file in the
    task's scope (test_scope.py); the checks are the stack's tests."""

    def __init__(self, site: StackSite, contract: TaskContract, test_path: str) -> None:
        self.site, self.contract, self.test_path = site, contract, test_path

    def write(self, path: str, text: str) -> str | None:
        if path != self.test_path:
            return f"{path}: only {self.test_path} may change in this round"
        text, _ = with_requested_fixtures(text)
        text, _ = with_raises_blocks(text)
        text, _ = with_unused_missing_ids(text)
        problems = scope_problems(text, self.contract, self.site.tree)
        if problems:
            return f"{path} is out of the task's scope: " + "; ".join(map(str, problems[:3]))
        return self.site.write(path, text)

    def check(self) -> Check:
        return self.site.check()


def repair_tokens(test_text: str) -> int:
    """The test repair's reply cap: room for the file half as long again (about 3 characters
    a token), never under 512. Measured on the 1.5B (shortener S1, stops 65-66): the repair
    ran to the 1536-token limit repeating lines, 87 s and 2.8 minutes of a 12-minute graph,
    for a file that did not parse."""
    return max(512, len(test_text) // 2)


def repair_tests(llm: LLM, site: StackSite, contract: TaskContract, task: dict[str, Any],
                 test_path: str, failed: CodeOutcome, *, stage: str) -> CodeOutcome:
    """One round after the code was sent back unchanged as right: the test file (only) may
    be fixed, kept within the task's scope; the stack's tests judge it."""
    test_text = site.read(test_path) or ""
    code = {p: t for p in failed.written or contract.modules
            if (t := site.read(p)) is not None}
    request = request_text("test_repair", task=task, test_path=test_path)
    if said := missing_field_reading(failed.output, in_tests=True):
        request = f"{request}\n\n{said}"
    edit_task = EditTask(request=request, files={test_path: test_text, **code},
                         edit=[test_path], spec=list(code), protect_tests=False,
                         failure=Check(False, failed.output, site.label),
                         max_tokens=repair_tokens(test_text))
    result = run_edit(llm, edit_task, _ScopedTests(site, contract, test_path), rounds=1,
                      bus=site.runtime.bus, stage=stage)
    last = site.last
    passed = bool(result.files) and bool(last and last.passed)
    return CodeOutcome(passed=passed, summary=last.summary if last else failed.summary,
                       output=last.output if last else failed.output,
                       tokens=failed.tokens + result.tokens,
                       written=sorted({*failed.written, *result.files}),
                       notes=failed.notes + result.notes)
