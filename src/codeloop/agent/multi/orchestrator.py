"""Planner -> implementer -> validator, with an implementer <-> validator fix loop of at most
`max_rounds` rounds, as a LangGraph graph. Each phase is a ReAct agent with its own tools and
prompt that finishes with schema-validated JSON (the finish action's arguments).

    START -> planning -> implementation -> validation -> (approved: END | fix: implementation)
"""

from __future__ import annotations

import json
import operator
import time
import uuid
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ValidationError

from codeloop.agent.factory import agent_spec
from codeloop.agent.multi.schemas import (
    ImplementationReport,
    MultiAgentResult,
    Plan,
    ValidationReport,
)
from codeloop.agent.react import build_react_graph, recursion_limit
from codeloop.agent.state import AgentLimits, new_turn_input
from codeloop.events import EventBus, StageEnd, StageStart
from codeloop.llm.base import LLM
from codeloop.tools import Workspace

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

    def _run(self, role: str, output: type[BaseModel], prompt: str,
             state: MultiState) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        spec = agent_spec(role, self.workspace, finish=output, limits=self.limits, bus=self.bus)
        if self.bus is not None:
            self.bus.emit(StageStart(stage=spec.name, detail=role))
        started = time.perf_counter()
        graph = build_react_graph(self.llm, spec, bus=self.bus)
        final = graph.invoke(new_turn_input(prompt, 1),
                             {"recursion_limit": recursion_limit(self.limits)})
        update: dict[str, Any] = {"steps": state["steps"] + final["steps"],
                                  "tokens": state["tokens"] + final["tokens"]}
        data, problem, notes = None, "", []
        if final["status"] != "finished" and not final.get("result"):
            problem = f"the {role} did not finish: {final['answer']}"
        else:
            try:
                data = output.model_validate(final["result"]).model_dump()
            except ValidationError as exc:
                problem = f"the {role}'s output is invalid: {exc.errors()[0]['msg']}"
            if data is not None and final["status"] != "finished":
                # Stopped (step cap, loop) but told to give its output: use it, and say so.
                notes.append(f"the {role} was stopped ({final['status']}) and gave its "
                             "output when told to stop")
        if self.bus is not None:
            self.bus.emit(StageEnd(stage=spec.name, seconds=time.perf_counter() - started,
                                   output=_json(data) if data else problem, ok=data is not None))
        if problem:
            update["failed"] = problem
            notes.append(problem)
        if notes:
            update["notes"] = notes
        return data, update

    # ------------------------------------------------------------------ nodes
    def planning(self, state: MultiState) -> dict[str, Any]:
        prompt = (f"Request: {state['request']}\n\nStudy the workspace as needed, then finish "
                  "with the plan.")
        plan, update = self._run("planner", Plan, prompt, state)
        return {**update, "plan": plan}

    def implementation(self, state: MultiState) -> dict[str, Any]:
        prompt = f"Request: {state['request']}\n\nPlan:\n{_json(state['plan'])}\n"
        if state["validations"]:
            last = state["validations"][-1]
            prompt += (f"\nThe validator asked for fixes (round {state['rounds'] + 1}):\n"
                       f"{last['fix_instructions']}\nIssues:\n"
                       + "\n".join(f"- {issue}" for issue in last["issues"]))
        else:
            prompt += "\nCarry out the plan, then finish with your report."
        report, update = self._run("implementer", ImplementationReport, prompt, state)
        update["rounds"] = state["rounds"] + 1
        if report is not None:
            update["implementations"] = [report]
        return update

    def validation(self, state: MultiState) -> dict[str, Any]:
        prompt = (f"Request: {state['request']}\n\nPlan:\n{_json(state['plan'])}\n\n"
                  f"Implementer's report:\n{_json(state['implementations'][-1])}\n\n"
                  "Check the changes, then finish with your review.")
        review, update = self._run("validator", ValidationReport, prompt, state)
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
