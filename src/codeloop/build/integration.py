"""IntegrationAgent: on main, once the tasks are merged: wire the parts together (entry
point, routes registered), run the whole test suite in the sandbox, fix at most
`integration_fixes` times. Its changes are committed on main like a task agent's."""

from __future__ import annotations

from codeloop.build.context import BuildContext, emit_state
from codeloop.build.push import push_main
from codeloop.build.state import BuildState
from codeloop.build.task_agent import Done, agent_spec, agent_text
from codeloop.build.testing import run_tests
from codeloop.events import Progress
from codeloop.jobs.agent_run import run_agent
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLMError
from codeloop.tools.workspace import Workspace

ENTRY_HINTS = {"python": "app/main.py", "javascript": "src/app.js", "go": "internal/server"}


def integrate(state: BuildState, ctx: BuildContext, _usage: UsageRecord) -> StageOutput:
    bus, stack = ctx.runtime.bus, ctx.stack
    if state["status"] == "FAILED":
        return StageOutput({}, f"skipped: {state['error']}", ok=False)
    emit_state(bus, {**state, "status": "INTEGRATING"})
    merged = state["completed_tasks"]
    workspace = Workspace.at(ctx.out_dir, shell_timeout=60.0,
                             unsafe_no_sandbox=ctx.runtime.unsafe_no_sandbox)
    spec = agent_spec("integration agent", "integration", stack, workspace, ctx.runtime)
    llm = ctx.runtime.llm_for("integration")
    notes: list[str] = []

    def agent(request: str, step: str) -> None:
        try:
            run = run_agent(llm, spec, request, Done, bus=bus, role=f"integration {step}")
        except LLMError as exc:  # the tests decide; a model error is a note, not a crash
            notes.append(f"{step}: the model failed: {exc}")
            return
        notes.append(f"{step}: {(run.output or {}).get('summary') or run.problem}")

    if merged:
        descriptions = "; ".join(f"{t} ({ctx.task.task(t).description[:80]})" for t in merged)
        agent(agent_text("integration_request", done_tasks=descriptions,
                         entry_hint=ENTRY_HINTS.get(stack.language, stack.src_dir)), "wiring")
    tests = run_tests(stack, ctx.out_dir, bus=bus, unsafe_no_sandbox=ctx.runtime.unsafe_no_sandbox)
    fixes = 0
    while not tests.passed and fixes < ctx.integration_fixes:
        fixes += 1
        bus.emit(Progress(done=len(merged), total=state["total_tasks"],
                          message=f"integration: the suite fails ({tests.summary}); "
                                  f"fix {fixes}/{ctx.integration_fixes}"))
        agent(agent_text("integration_fix_request", summary=tests.summary,
                         failure=tests.output), f"fix {fixes}")
        tests = run_tests(stack, ctx.out_dir, bus=bus,
                          unsafe_no_sandbox=ctx.runtime.unsafe_no_sandbox)
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
