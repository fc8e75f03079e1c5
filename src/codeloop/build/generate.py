"""The generation node: task agents run through the executor as soon as their dependencies
are merged (at most max_parallel at once); each finished task is merged here, in this one
thread (one merge at a time); a failed task blocks its dependents; more than half the tasks
not merged stops the build as FAILED, keeping what was merged. The state is emitted after
every change, so a killed build resumes from what main holds (its index and work tree are
first reset to HEAD: a kill in a merge can leave them dirty)."""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

from codeloop.build.context import BuildContext, emit_state
from codeloop.build.merge import merge_task
from codeloop.build.push import push_main
from codeloop.build.repo import merged_tasks, remove_worktree, restore_main
from codeloop.build.scheduler import Schedule
from codeloop.build.state import BuildState
from codeloop.build.task_agent import TaskUnit, run_task
from codeloop.events import Progress, StageEnd, StageStart
from codeloop.gitutil import GitError
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord


def generate(state: BuildState, ctx: BuildContext, _usage: UsageRecord) -> StageOutput:
    request, bus, out = ctx.task, ctx.runtime.bus, ctx.out_dir
    ids = {t.id for t in request.tasks}
    previous = ctx.resume_snapshot or {}
    if ctx.resume_snapshot is not None:  # a kill in a merge may have left main dirty
        dropped = restore_main(out)
        if dropped:
            bus.emit(Progress(done=0, total=len(ids), message=(
                f"resuming: main's work tree restored to HEAD ({len(dropped)} change(s) "
                "of the interrupted run dropped)")))
    # main is the truth for what was merged (a kill may fall between a merge and its event).
    merged = [t for t in merged_tasks(out) if t in ids]
    failed = {k: v for k, v in (previous.get("failed_tasks") or {}).items()
              if k in ids and k not in merged}
    blocked = [t for t in previous.get("blocked_tasks") or [] if t in ids and t not in merged]
    schedule = Schedule(request, ctx.max_parallel, merged=merged, failed=failed,
                        blocked=blocked)
    current: dict[str, Any] = {**state, "status": "GENERATING"}
    if merged:
        bus.emit(Progress(done=len(merged), total=len(ids),
                          message=f"resuming: {', '.join(merged)} already merged"))

    def publish() -> None:
        current.update(completed_tasks=list(schedule.merged), current_tasks=list(schedule.running),
                       failed_tasks=dict(schedule.failed), blocked_tasks=list(schedule.blocked))
        emit_state(bus, current)

    publish()
    futures: dict[Future[dict[str, Any]], str] = {}
    executor = ctx.executor_factory(ctx.max_parallel)
    try:
        while True:
            for task_id in schedule.next_ready():
                schedule.start(task_id)
                bus.emit(StageStart(stage="build.task", detail=task_id))  # before its events
                publish()
                futures[executor.submit(run_task, _unit(ctx, task_id, schedule),
                                        ctx.runtime)] = task_id
            if not futures:
                break
            done, _ = wait(list(futures), return_when=FIRST_COMPLETED)
            for future in done:
                task_id = futures.pop(future)
                _settle(ctx, schedule, task_id, future)
                publish()
            if schedule.stopped:
                ctx.runtime.stop.set()  # running tasks stop at their next attempt
    except BaseException:
        # Ctrl-C, SIGTERM or a bug: running tasks start no new attempt (a resume redoes them).
        ctx.runtime.stop.set()
        raise
    finally:
        executor.shutdown(wait=True, cancel_pending=True)
    if schedule.too_many_failed():
        reason = (f"{schedule.unmerged_count()} of {len(ids)} tasks were not merged "
                  f"(more than half); the {len(schedule.merged)} merged are kept on main")
        current.update(status="FAILED", error=reason)
        publish()
        return StageOutput({**_fields(current), "status": "FAILED", "error": reason}, reason,
                           ok=False)
    unsettled = [t.id for t in request.tasks if not schedule.settled(t.id)]
    shown = (f"{len(schedule.merged)} merged, {len(schedule.failed)} not merged"
             + (f", never started: {', '.join(unsettled)}" if unsettled else ""))
    return StageOutput({**_fields(current), "status": "INTEGRATING"}, shown)


def _fields(current: dict[str, Any]) -> dict[str, Any]:
    keys = ("completed_tasks", "current_tasks", "failed_tasks", "blocked_tasks")
    return {k: current[k] for k in keys}


def _unit(ctx: BuildContext, task_id: str, schedule: Schedule) -> TaskUnit:
    request = ctx.task
    return TaskUnit(task=request.task(task_id).model_dump(), stack=ctx.stack.model_dump(),
                    repo=str(ctx.out_dir), worktree=str(ctx.worktrees / task_id),
                    done_tasks=[f"{t} ({request.task(t).description[:80]})"
                                for t in schedule.merged],
                    others=[t.model_dump() for t in request.tasks if t.id != task_id],
                    merged=list(schedule.merged),
                    retries=ctx.retries, fix_rounds=ctx.fix_rounds,
                    backoff_seconds=ctx.backoff_seconds)


def _settle(ctx: BuildContext, schedule: Schedule, task_id: str,
            future: Future[dict[str, Any]]) -> None:
    """A finished unit: merge it, or record why not (and block its dependents)."""
    bus = ctx.runtime.bus
    outcome = future.result()  # SandboxUnavailable and bugs propagate: the build stops
    total = len(ctx.task.tasks)
    if not outcome["ok"]:
        newly = schedule.task_failed(task_id, f"blocked: {outcome['reason']}", blocked=True)
        remove_worktree(ctx.out_dir, ctx.worktrees / task_id)
        bus.emit(StageEnd(stage="build.task", output=f"{task_id}: blocked: {outcome['reason']}",
                          ok=False))
        bus.emit(Progress(done=len(schedule.merged), total=total,
                          message=f"{task_id}: blocked ({outcome['reason']})"
                          + (f"; blocked too: {', '.join(newly)}" if newly else "")))
        return
    try:
        report = merge_task(ctx.out_dir, ctx.worktrees / task_id,
                            ctx.task.task(task_id).model_dump(), ctx.stack, ctx.runtime)
    except GitError as exc:
        report_ok, reason = False, f"merge failed: {exc}"
    else:
        report_ok, reason = report.ok, report.reason
    if report_ok:
        schedule.merge_done(task_id)
        ctx.runtime.merged_now.add(task_id)
        push_main(ctx.out_dir, ctx.push_to, bus)
        bus.emit(StageEnd(stage="build.task", output=f"{task_id}: merged", ok=True))
        bus.emit(Progress(done=len(schedule.merged), total=total,
                          message=f"{task_id}: merged into main"))
        return
    newly = schedule.task_failed(task_id, reason, blocked=False)
    bus.emit(StageEnd(stage="build.task", output=f"{task_id}: failed: {reason}", ok=False))
    bus.emit(Progress(done=len(schedule.merged), total=total,
                      message=f"{task_id}: not merged ({reason})"
                      + (f"; blocked: {', '.join(newly)}" if newly else "")))
