"""Planner -> implementer -> validator, with an implementer <-> validator fix loop of at most
`max_rounds` rounds, as a LangGraph graph. Each phase is a ReAct agent with its own tools and
prompt that finishes with schema-validated JSON (the finish action's arguments).

The implementer opens with the single agent's context-first edit (jobs/react/context_first.py):
the request, the plan in prose and the files they name in one prompt, whole files back, the
project's tests run by themselves; the ReAct tools go on only when that does not pass. Why:
the same 1.5B solved 16 of 24 agent tasks context first against 6 of 12 tool-first, and the
tool-first implementer was the one left (5 of 12 at 42k tokens a task); with it, multi-agent
mode solved 10 of the first 12 at 22k (benchmarks/results/agent-1.5b-multi-context-first).

The validator is shown the project's test output (the orchestrator runs the tests in the
sandbox), and an approval while they fail becomes a request for fixes: in that run the 1.5B
validator approved a "no change needed" report with the named tests still failing.

    START -> planning -> implementation -> validation -> (approved: END | fix: implementation)
"""

from __future__ import annotations

import json
import operator
import uuid
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from codeloop.agent.factory import agent_spec
from codeloop.agent.multi.schemas import (
    MAX_FILES,
    ImplementationReport,
    MultiAgentResult,
    Plan,
    ValidationReport,
)
from codeloop.agent.prompts import phase_request
from codeloop.events import EventBus
from codeloop.jobs.agent_run import run_agent
from codeloop.jobs.edit_engine.context_plan import run_project_tests, test_command
from codeloop.jobs.react.context_first import ContextFirst
from codeloop.jobs.react.state import AgentLimits
from codeloop.llm.base import LLM
from codeloop.tools import Toolbox, Workspace, run_bash_command

MAX_ROUNDS = 3


class MultiState(TypedDict):
    request: str
    plan: dict[str, Any] | None
    implementations: Annotated[list[dict[str, Any]], operator.add]
    validations: Annotated[list[dict[str, Any]], operator.add]
    rounds: int
    failed: str  # why a phase could not produce its output ("" when none failed)
    notes: Annotated[list[str], operator.add]
    steps: int
    tokens: int


def _json(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False)


class _Phases:
    def __init__(self, llm: LLM, workspace: Workspace, bus: EventBus | None,
                 limits: AgentLimits, max_rounds: int) -> None:
        self.llm, self.workspace, self.bus = llm, workspace, bus
        self.limits, self.max_rounds = limits, max_rounds
        # The orchestrator's own test runs (the validator has no shell): in the sandbox.
        self.test_box = Toolbox(workspace, [run_bash_command], bus=bus, stage="validation")

    def _run(self, role: str, output: type[BaseModel], prompt: str, state: MultiState,
             direct: str | None = None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """One phase's agent through the kit's runner; its output and the state update.
        `direct`: the request of a context-first edit to open with."""
        spec = agent_spec(role, self.workspace, finish=output, limits=self.limits, bus=self.bus)
        opening = (ContextFirst(self.llm, spec, self.bus, request=direct,
                                report=_implementation_report) if direct else None)
        run = run_agent(self.llm, spec, prompt, output, bus=self.bus, role=role,
                        opening=opening)
        update: dict[str, Any] = {"steps": state["steps"] + run.steps,
                                  "tokens": state["tokens"] + run.tokens}
        if run.problem:
            update["failed"] = run.problem
        if run.notes:
            update["notes"] = run.notes
        return run.output, update

    # ------------------------------------------------------------------ nodes
    def planning(self, state: MultiState) -> dict[str, Any]:
        prompt = phase_request("planning", request=state["request"])
        plan, update = self._run("planner", Plan, prompt, state)
        return {**update, "plan": plan}

    def implementation(self, state: MultiState) -> dict[str, Any]:
        last = state["validations"][-1] if state["validations"] else None
        plan = state["plan"] or {}
        fix = {"fix_round": state["rounds"] + 1 if last else 0,
               "fix_instructions": last["fix_instructions"] if last else "",
               "issues": last["issues"] if last else []}
        prompt = phase_request("implementation", request=state["request"], plan=_json(plan),
                               **fix)
        # A step's details on their first line only: the planner's details are cut at 240
        # characters, and a code draft cut there is broken code the implementer copies
        # (measured: create_word_count in agent-1.5b-multi-context-first).
        steps = [{**step, "details": (step["details"].splitlines() or [""])[0]}
                 for step in plan.get("steps", [])]
        in_steps = {step["file"] for step in steps}
        direct = phase_request(
            "direct_implementation", request=state["request"], steps=steps,
            create=[f for f in plan.get("files_to_create", []) if f not in in_steps],
            modify=[f for f in plan.get("files_to_modify", []) if f not in in_steps],
            **fix).strip()
        report, update = self._run("implementer", ImplementationReport, prompt, state,
                                   direct=direct)
        update["rounds"] = state["rounds"] + 1
        if report is not None:
            update["implementations"] = [report]
        return update

    def validation(self, state: MultiState) -> dict[str, Any]:
        command = test_command(self.workspace.walk_files())
        tests = run_project_tests(self.test_box, command) if command else None
        prompt = phase_request("validation", request=state["request"], plan=_json(state["plan"]),
                               report=_json(state["implementations"][-1]), command=command,
                               tests=tests[1] if tests else "", passed=bool(tests and tests[0]))
        review, update = self._run("validator", ValidationReport, prompt, state)
        if review is not None and tests and not tests[0] and review["status"] == "approved":
            # Measured: the 1.5B validator approved a "no change needed" report while the
            # tests the request named still failed. Failing tests are never approved.
            review = _failing_tests_review(review, tests[1])
            note = "the validator approved while the project's tests fail: sent back for fixes"
            update["notes"] = [*update.get("notes", []), note]
        if review is not None:
            update["validations"] = [review]
        return update

    # ------------------------------------------------------------------ routing
    def after_planning(self, state: MultiState) -> Literal["implementation", "__end__"]:
        return END if state["failed"] or state["plan"] is None else "implementation"

    def after_implementation(self, state: MultiState) -> Literal["validation", "__end__"]:
        return END if state["failed"] else "validation"

    def after_validation(self, state: MultiState) -> Literal["implementation", "__end__"]:
        if state["failed"] or not state["validations"]:
            return END
        if state["validations"][-1]["status"] == "approved":
            return END
        return "implementation" if state["rounds"] < self.max_rounds else END


def _implementation_report(modified: list[str], created: list[str],
                           answer: str) -> dict[str, Any]:
    """The implementer's report for a context-first edit that passed (tests, or files that
    parse, and no lint error it brought in: jobs/react/changed_lint.py): its changed files;
    no pylint scores (the validator lints with them)."""
    return ImplementationReport(status="success", files_created=created[:MAX_FILES],
                                files_modified=modified[:MAX_FILES]).model_dump()


def _failing_tests_review(review: dict[str, Any], output: str) -> dict[str, Any]:
    """An approval turned into a request for fixes, because the project's tests fail."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    summary = lines[-1] if lines else "no output"
    return ValidationReport(
        status="needs_fixes", changes_summary=review["changes_summary"],
        quality_score=min(review["quality_score"], 5.0),
        issues=[f"The project's tests fail: {summary}"[:160]],
        fix_instructions=" ".join(["Make the project's tests pass.", *failed])[:400],
    ).model_dump()


def build_multi_agent_graph(llm: LLM, workspace: Workspace, *, bus: EventBus | None = None,
                            limits: AgentLimits | None = None, max_rounds: int = MAX_ROUNDS,
                            checkpointer: Any = None):
    phases = _Phases(llm, workspace, bus, limits or AgentLimits(), max_rounds)
    graph = StateGraph(MultiState)
    graph.add_node("planning", phases.planning)
    graph.add_node("implementation", phases.implementation)
    graph.add_node("validation", phases.validation)
    graph.add_edge(START, "planning")
    graph.add_conditional_edges("planning", phases.after_planning)
    graph.add_conditional_edges("implementation", phases.after_implementation)
    graph.add_conditional_edges("validation", phases.after_validation)
    return graph.compile(checkpointer=checkpointer)


def run_multi_agent(llm: LLM, workspace: Workspace, request: str, *,
                    bus: EventBus | None = None, limits: AgentLimits | None = None,
                    max_rounds: int = MAX_ROUNDS, checkpointer: Any = None) -> MultiAgentResult:
    """Run the three phases on `request`; the result holds every phase's output."""
    if not request.strip():
        raise ValueError("the request is empty")
    graph = build_multi_agent_graph(llm, workspace, bus=bus, limits=limits,
                                    max_rounds=max_rounds, checkpointer=checkpointer)
    config = {"configurable": {"thread_id": f"multi:{uuid.uuid4().hex[:12]}"},
              "recursion_limit": 4 * max_rounds + 10}
    final = graph.invoke({"request": request, "plan": None, "implementations": [],
                          "validations": [], "rounds": 0, "failed": "", "notes": [],
                          "steps": 0, "tokens": 0}, config)
    validations = [ValidationReport(**v) for v in final["validations"]]
    approved = (not final["failed"] and bool(validations)
                and validations[-1].status == "approved")
    notes = list(final["notes"])
    if not approved and validations and not final["failed"]:
        notes.append(f"not approved after {final['rounds']} round(s): needs review")
    return MultiAgentResult(
        status="approved" if approved else "needs_review",
        plan=Plan(**final["plan"]) if final["plan"] else None,
        implementations=[ImplementationReport(**r) for r in final["implementations"]],
        validations=validations, rounds=final["rounds"], notes=notes,
        steps=final["steps"], tokens=final["tokens"],
    )
