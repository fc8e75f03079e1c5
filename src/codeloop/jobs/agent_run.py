"""One agent runner: run one ReAct agent on one request until it returns a pydantic result.

Used by the multi-agent phases; build's task agents and ask's analyzer are to use it too.
The ReAct loop itself still lives in agent/ (it moves into the kit with the package
renames); this module is the public way for a job to run one agent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from codeloop.events import EventBus, StageEnd, StageStart
from codeloop.jobs.react.react import build_react_graph, recursion_limit
from codeloop.jobs.react.state import AgentSpec, AgentState, Status, new_turn_input
from codeloop.llm.base import LLM


@dataclass
class AgentRun:
    """What one agent's run gave: its validated output (None when it gave none) or why not."""

    output: dict[str, Any] | None  # the result model, dumped
    problem: str  # why there is no output ("" when there is one)
    status: Status
    steps: int
    tokens: int
    notes: list[str] = field(default_factory=list)  # the problem, or how the output came


def run_agent(llm: LLM, spec: AgentSpec, request: str, output: type[BaseModel], *,
              bus: EventBus | None = None, role: str = "",
              opening: Callable[[AgentState], dict[str, Any]] | None = None) -> AgentRun:
    """Run `spec` on `request` (one turn, no memory) and validate its finish arguments
    against `output`. Emits StageStart/StageEnd under the agent's name (detail: `role`);
    a stopped agent that still gave a valid output is used, with a note saying so.
    `opening`: a node run before the loop that may finish the turn (the context-first
    edit, jobs/react/context_first.py)."""
    who = role or spec.name
    if bus is not None:
        bus.emit(StageStart(stage=spec.name, detail=who))
    started = time.perf_counter()
    graph = build_react_graph(llm, spec, bus=bus, opening=opening)
    final = graph.invoke(new_turn_input(request, 1),
                         {"recursion_limit": recursion_limit(spec.limits)})
    data, problem, notes = None, "", []
    if final["status"] != "finished" and not final.get("result"):
        problem = f"the {who} did not finish: {final['answer']}"
    else:
        try:
            data = output.model_validate(final["result"]).model_dump()
        except ValidationError as exc:
            problem = f"the {who}'s output is invalid: {exc.errors()[0]['msg']}"
        if data is not None and final["status"] != "finished":
            # Stopped (step cap, loop) but told to give its output: use it, and say so.
            notes.append(f"the {who} was stopped ({final['status']}) and gave its "
                         "output when told to stop")
    if bus is not None:
        bus.emit(StageEnd(stage=spec.name, seconds=time.perf_counter() - started,
                          output=_json(data) if data else problem, ok=data is not None))
    if problem:
        notes.append(problem)
    return AgentRun(output=data, problem=problem, status=final["status"],
                    steps=final["steps"], tokens=final["tokens"], notes=notes)


def _json(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False)
