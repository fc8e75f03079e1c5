"""The build job's Python entry points: check the inputs (nothing runs on bad input), then
run the graph inside a run of the store, or resume an interrupted one.

    inputs = prepare(request, stack=..., out_dir=...)          # BuildInputError: one line
    with store.run("build", inputs.record()) as run:
        final = execute(inputs, run, store, runtime, options)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeloop.build.context import BuildContext, emit_state, last_snapshot
from codeloop.build.push import PushTargetError, check_target
from codeloop.build.request import (
    BuildRequest,
    BuildRequestError,
    dependency_levels,
    load_request,
    parse_request,
)
from codeloop.build.runtime import BuildRuntime
from codeloop.build.stacks import Stack, StackError, load_stack, missing_toolchain
from codeloop.build.state import create_initial_state, public_state
from codeloop.jobs.executor import Executor, local_executor
from codeloop.sandbox.removal import remove_tree
from codeloop.scratch import ScratchDir, UnsafeScratch, make_scratch, private_root, stale_scratch

JOB = "build"
SCRATCH = "build"  # the private scratch root of build's worktrees


class BuildInputError(ValueError):
    """The build cannot start; the message is one line for the user."""


@dataclass
class BuildOptions:
    max_parallel: int = 3
    retries: int = 5
    fix_rounds: int = 3
    backoff_seconds: float = 2.0
    integration_fixes: int = 3
    push_to: str = ""  # --push-to: a bare repository path or an https URL ("" none)

    def __post_init__(self) -> None:
        if not 1 <= self.max_parallel <= 32:
            raise BuildInputError(f"--max-parallel must be 1-32 (got {self.max_parallel})")
        for name in ("retries", "fix_rounds", "integration_fixes"):
            if not 0 <= getattr(self, name) <= 10:
                raise BuildInputError(f"{name} must be 0-10 (got {getattr(self, name)})")


@dataclass
class BuildInputs:
    request: BuildRequest
    stack: Stack
    out_dir: Path
    options: BuildOptions = field(default_factory=BuildOptions)
    stack_file: str | None = None

    def record(self) -> dict[str, Any]:
        """What the run store keeps as the run's input (enough to resume it)."""
        return {"request": self.request.model_dump(), "stack": self.stack.name,
                "stack_file": self.stack_file, "out_dir": str(self.out_dir),
                "max_parallel": self.options.max_parallel, "push_to": self.options.push_to}


def prepare(request: BuildRequest | dict | str | Path, *, out_dir: str | Path,
            stack: str | None = None, stack_file: str | Path | None = None,
            options: BuildOptions | None = None, resume: bool = False) -> BuildInputs:
    """Every check that can fail before anything is written."""
    try:
        if isinstance(request, BuildRequest):
            parsed = request
        elif isinstance(request, (str, Path)):
            parsed = load_request(request)
        else:
            parsed = parse_request(request)
        chosen = load_stack(stack or parsed.tech_stack or None,
                            stack_file) if stack_file is None else load_stack(None, stack_file)
    except (BuildRequestError, StackError) as exc:
        raise BuildInputError(str(exc)) from exc
    missing = missing_toolchain(chosen)
    if missing:
        raise BuildInputError(missing)
    out = Path(out_dir).expanduser().resolve()
    if resume:
        if not (out / ".git").is_dir():
            raise BuildInputError(f"--resume: {out} holds no build (no .git); start it "
                                  "without --resume")
    elif out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BuildInputError(f"{out} exists and is not empty: choose a new --out directory "
                              "(or --resume a build there)")
    try:
        private_root(SCRATCH)  # the worktrees' place must be ours alone before we start
    except UnsafeScratch as exc:
        raise BuildInputError(str(exc)) from None
    options = options or BuildOptions()
    if options.push_to:
        try:
            options.push_to = check_target(options.push_to, out)
        except PushTargetError as exc:
            raise BuildInputError(str(exc)) from exc
    return BuildInputs(parsed, chosen, out, options,
                       str(Path(stack_file).expanduser().resolve()) if stack_file else None)


def resume_mismatch(recorded: dict[str, Any], inputs: BuildInputs) -> str | None:
    """Why `inputs` cannot go on with the run whose recorded input is `recorded` (one line),
    or None: a resume keeps the interrupted build's stack, stack file and push target."""
    now = inputs.record()

    def path_of(value: Any) -> str | None:
        return str(Path(str(value)).expanduser().resolve()) if value else None

    checks = (("--stack", recorded.get("stack"), now["stack"]),
              ("--stack-file", path_of(recorded.get("stack_file")), now["stack_file"]),
              ("--push-to", recorded.get("push_to") or "", now["push_to"] or ""))
    for flag, before, given in checks:
        if before != given:
            return (f"--resume: {flag} {given or '(none)'} differs from the interrupted "
                    f"build's {before or '(none)'}; give the same options to resume it")
    return None


def worktrees_dir(run_id: str) -> ScratchDir:
    """Where a run's task worktrees live: outside the project (the sandbox copies the
    project for every test run; worktrees inside it would be copied too), in a fresh private
    directory of the user's (scratch.py), never a fixed path in a shared temp dir. What a
    killed run of the same id left there goes first."""
    for stale in stale_scratch(SCRATCH, f"{run_id}-"):
        remove_tree(stale)
    return make_scratch(SCRATCH, f"{run_id}-")


def find_resumable(store: Any, out_dir: Path) -> str | None:
    """The newest build run for `out_dir` that can be taken up (interrupted)."""
    store.mark_interrupted()
    for record in store.list_runs(JOB, limit=200):
        if Path(str(record.input.get("out_dir", ""))) == out_dir and \
                record.status == "interrupted":
            return record.id
    return None


def execute(inputs: BuildInputs, run: Any, store: Any, runtime: BuildRuntime, *,
            resuming: bool = False,
            executor_factory: Any = local_executor) -> dict[str, Any]:
    """Run (or resume) the build inside `run`; finishes the run; the final public state."""
    from codeloop.build.graph import build_graph

    runtime.bus = run.bus
    snapshot = last_snapshot(store.events(run.id)) if resuming else None
    levels = dependency_levels(inputs.request)
    opts = inputs.options
    scratch = worktrees_dir(run.id)
    worktrees = scratch.path
    inputs.out_dir.mkdir(parents=True, exist_ok=True)
    ctx = BuildContext(llm=runtime.llm_for("integration"), task=inputs.request,
                       bus=run.bus, stack=inputs.stack, out_dir=inputs.out_dir,
                       runtime=runtime, worktrees=worktrees, max_parallel=opts.max_parallel,
                       retries=opts.retries, fix_rounds=opts.fix_rounds,
                       backoff_seconds=opts.backoff_seconds,
                       integration_fixes=opts.integration_fixes,
                       executor_factory=executor_factory, resume_snapshot=snapshot,
                       push_to=opts.push_to)
    graph = build_graph(ctx, checkpointer=store.checkpointer())
    config = {"configurable": {"thread_id": run.id}, "recursion_limit": 20}
    initial = create_initial_state(inputs.stack.name, str(inputs.out_dir), levels)
    emit_state(run.bus, initial if snapshot is None else {**initial, **snapshot})
    saved = graph.get_state(config) if resuming else None
    try:
        if saved is not None and saved.next:
            final = graph.invoke(None, config)
        else:
            final = graph.invoke(initial, config)
    finally:
        _clean_worktrees(inputs.out_dir, scratch)
    final = {**final, "current_tasks": []}
    emit_state(run.bus, final)
    result = public_state(final)
    run.finish("complete" if final["status"] == "COMPLETE" else "failed", result)
    return result


def _clean_worktrees(repo: Path, scratch: ScratchDir) -> None:
    """Remove the run's worktrees (the whole scratch dir, only if it is still the one made,
    following no symlink), then let git forget them. git's own `worktree remove` is not
    used: it follows a worktree swapped for a symlink."""
    from codeloop.build.repo import prune_worktrees

    scratch.remove()
    if (repo / ".git").is_dir():
        prune_worktrees(repo)


def executor_for(name: str = "local") -> Any:
    """The executor factory by name (only the local pool today)."""
    if name != "local":
        raise BuildInputError(f"unknown executor {name!r} (only 'local')")
    return local_executor


__all__ = ["BuildInputError", "BuildInputs", "BuildOptions", "Executor", "execute",
           "find_resumable", "prepare", "resume_mismatch", "worktrees_dir"]
