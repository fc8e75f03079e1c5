"""IntegrationAgent: on main, once the tasks are merged: wire the parts together (entry
point, routes registered) and fix what the whole test suite (in the sandbox) says, through
the kit's edit engine: the entry point and the project's modules in one prompt, the suite's
failure in the next, at most `integration_fixes` fix rounds. Its writes are committed on main
like a task's (edit_site.py). When the suite ends worse than it was before the integration
touched main, main goes back to where it was: measured on the 1.5B's todo run, an
`app/__init__.py` that imports app.main broke a suite that passed, and three fixes kept it."""

from __future__ import annotations

from codeloop.build.code_step import request_text
from codeloop.build.context import BuildContext, emit_state
from codeloop.build.contract import module_of
from codeloop.build.edit_site import StackSite
from codeloop.build.push import push_main
from codeloop.build.router_wiring import unwired_routers, wired_entry, without_self_registration
from codeloop.build.state import BuildState
from codeloop.build.testing import TestRun
from codeloop.events import Progress
from codeloop.gitutil import git
from codeloop.jobs.edit_engine.api import Check, EditTask
from codeloop.jobs.edit_engine.rounds import run_edit
from codeloop.jobs.request_files import is_test_path
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLMError

SHOWN_CHARS = 16_000  # of the project's modules in the prompt


def integrate(state: BuildState, ctx: BuildContext, _usage: UsageRecord) -> StageOutput:
    bus, stack = ctx.runtime.bus, ctx.stack
    if state["status"] == "FAILED":
        return StageOutput({}, f"skipped: {state['error']}", ok=False)
    emit_state(bus, {**state, "status": "INTEGRATING"})
    merged = state["completed_tasks"]
    site = StackSite(ctx.out_dir, stack, ctx.runtime, "integration")
    llm = ctx.runtime.llm_for("integration")
    entry = stack.entry_point or stack.src_dir
    notes: list[str] = []
    tests = _run(site)
    if entry.endswith(".py"):  # a router no one registers: wired by the harness first
        tests = _wire_routers(site, entry, ctx, tests, notes, len(merged),
                              state["total_tasks"])
    start = git(["rev-parse", "HEAD"], ctx.out_dir).stdout.strip()
    before = tests

    def edit(request: str, rounds: int) -> int:
        shown = _project_files(site, entry)
        failure = None if tests.passed else Check(False, tests.output, site.label)
        try:
            result = run_edit(llm, EditTask(request=request, files=shown, edit=list(shown),
                                            failure=failure), site, rounds=rounds, bus=bus,
                              stage="integration")
        except LLMError as exc:  # the tests decide; a model error is a note, not a crash
            notes.append(f"the model failed: {exc}")
            return 0
        notes.extend(result.notes[-4:])
        return result.rounds

    if merged:
        descriptions = "; ".join(f"{t} ({ctx.task.task(t).description[:80]})" for t in merged)
        edit(request_text("integration", done_tasks=descriptions, entry=entry), 1)
        tests = site.last or tests
    fixes = 0
    if not tests.passed and ctx.integration_fixes:
        bus.emit(Progress(done=len(merged), total=state["total_tasks"],
                          message=f"integration: the suite fails ({tests.summary}); "
                                  f"up to {ctx.integration_fixes} fix(es)"))
        fixes = edit(request_text("integration_fix"), ctx.integration_fixes)
        tests = site.last or tests
    if not tests.passed and _rank(before) > _rank(tests):
        git(["reset", "-q", "--hard", start], ctx.out_dir)
        notes.append(f"the integration's changes were rolled back: the suite was better "
                     f"before them ({before.summary}) than after ({tests.summary})")
        bus.emit(Progress(done=len(merged), total=state["total_tasks"],
                          message=f"integration: {notes[-1]}"))
        tests = before
    push_main(ctx.out_dir, ctx.push_to, bus)
    report = {"passed": tests.passed, "fixes": fixes, "summary": tests.summary,
              "notes": notes}
    if not tests.passed:
        error = (f"the whole test suite still fails after {fixes} integration fix(es): "
                 f"{tests.summary}")
        return StageOutput({"status": "FAILED", "error": error, "integration": report}, error,
                           ok=False)
    return StageOutput({"status": "COMPLETE", "integration": report},
                       f"whole suite passes ({tests.summary}) after {fixes} fix(es)")


def _wire_routers(site: StackSite, entry: str, ctx: BuildContext, tests: TestRun,
                  notes: list[str], done: int, total: int) -> TestRun:
    """Register the routers nothing registers (router_wiring.py); kept when the suite is no
    worse for it, else main goes back to where it was."""
    src = site.stack.src_dir.strip("/") + "/"
    files = {p: t for p in site.workspace.walk_files()
             if p.startswith(src) and p.endswith(".py") and not is_test_path(p)
             and (t := site.read(p)) is not None}
    # a module that registers its router on the entry point's app itself: the registration
    # moves to the entry point (router_wiring.py), or the wiring would be an import cycle
    moved = {path: kept for path, text in files.items() if path != entry
             and (kept := without_self_registration(text, module_of(entry))) is not None}
    routers = unwired_routers({**files, **moved}, entry)
    wired = wired_entry(files.get(entry, ""), routers) if routers else None
    if wired is None:
        return tests
    start = git(["rev-parse", "HEAD"], ctx.out_dir).stdout.strip()
    names = ", ".join(f"{module}.{name}" for module, name in routers)
    refused = next((why for path, text in moved.items() if (why := site.write(path, text))),
                   None) or site.write(entry, wired)
    after = tests if refused else _run(site)
    if refused or _rank(after) < _rank(tests):
        git(["reset", "-q", "--hard", start], ctx.out_dir)
        notes.append(f"registering {names} in {entry} was not kept: "
                     + (refused or f"the suite got worse ({after.summary})"))
        return tests
    notes.append(f"the harness registered {names} in {entry}" + (
        f" (moved there from {', '.join(sorted(moved))})" if moved else ""))
    ctx.runtime.bus.emit(Progress(done=done, total=total,
                                  message=f"integration: {notes[-1]} ({after.summary})"))
    return after


def _rank(run: TestRun) -> tuple[bool, int, int]:
    """Better runs rank higher: passing, then fewer failures and errors, then more passes."""
    passed, failed, errors = run.counts
    return run.passed, -(failed + errors), passed


def _run(site: StackSite) -> TestRun:
    site.check()
    assert site.last is not None
    return site.last


def _project_files(site: StackSite, entry: str) -> dict[str, str]:
    """The entry point first, then the project's other source files, while they fit."""
    files = [p for p in site.workspace.walk_files()
             if p.startswith(site.stack.src_dir.strip("/") + "/") and not is_test_path(p)
             and p.endswith((".py", ".js", ".jsx", ".go"))]
    shown: dict[str, str] = {}
    total = 0
    for path in sorted(files, key=lambda p: (p != entry, p)):
        text = site.read(path)
        if text is not None and total + len(text) <= SHOWN_CHARS:
            shown[path] = text
            total += len(text)
    return shown
