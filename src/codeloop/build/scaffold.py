"""ScaffoldAgent: the stack's config files and hello-world code and test, the dependency
step, the hello-world test passing in the sandbox, committed on main. The files come from the
stack (deterministic: a small model need not invent a package.json). On resume a scaffold
already committed is kept."""

from __future__ import annotations

from codeloop.build.context import BuildContext, emit_state
from codeloop.build.install import install_dependencies
from codeloop.build.push import push_main
from codeloop.build.repo import commit_paths, head, init_project
from codeloop.build.stacks import project_name, render_files
from codeloop.build.state import BuildState
from codeloop.build.testing import run_tests
from codeloop.events import Progress
from codeloop.gitutil import GitError
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.sandbox.pathguard import PathGuard


def scaffold(state: BuildState, ctx: BuildContext, _usage: UsageRecord) -> StageOutput:
    out, stack, bus = ctx.out_dir, ctx.stack, ctx.runtime.bus
    emit_state(bus, {**state, "status": "SCAFFOLDING"})
    if (out / ".git").exists() and _has_commit(ctx):
        sha = head(out)
        bus.emit(Progress(done=0, total=state["total_tasks"],
                          message=f"scaffold: kept (main at {sha[:8]})"))
        return StageOutput({"status": "GENERATING", "scaffold_commit": sha}, "kept")
    init_project(out, stack.deps_dirs)
    name = project_name(out)
    where = f"the {stack.name} stack"
    files = {**render_files(stack.config_files, name, where),
             **render_files(stack.scaffold_files, name, where)}
    guard = PathGuard(out)
    for path, text in files.items():
        guard.write_text(path, text)
    bus.emit(Progress(done=0, total=state["total_tasks"],
                      message=f"scaffold: {len(files)} files written; installing dependencies"))
    installed = install_dependencies(stack, out)
    if not installed.ok:
        return _failed(f"dependency install failed: {installed.message}")
    bus.emit(Progress(done=0, total=state["total_tasks"],
                      message=f"scaffold: {installed.message}; running the hello-world test"))
    tests = run_tests(stack, out, bus=bus, unsafe_no_sandbox=ctx.runtime.unsafe_no_sandbox)
    if not tests.passed:
        return _failed(f"the scaffold's hello-world test fails ({tests.summary}): "
                       f"{tests.output[-300:]}")
    sha = commit_paths(out, sorted(files), f"scaffold: {stack.name} project {name}") or head(out)
    push_main(out, ctx.push_to, bus)
    return StageOutput({"status": "GENERATING", "scaffold_commit": sha},
                       f"{len(files)} files, hello-world test passes ({tests.summary})")


def _has_commit(ctx: BuildContext) -> bool:
    try:
        head(ctx.out_dir)
    except GitError:
        return False
    return True


def _failed(reason: str) -> StageOutput:
    return StageOutput({"status": "FAILED", "error": reason}, reason, ok=False)
