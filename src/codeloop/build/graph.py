"""The build job as a LangGraph graph, checkpointed in the run store (thread = run id):

    START -> scaffold -> generate -> integrate -> END      (scaffold FAILED -> END)

A killed build resumes at the node it was in; generate then goes on from what main holds.
"""

from __future__ import annotations

from typing import Any, Literal

from codeloop.build.context import BuildContext
from codeloop.build.generate import generate
from codeloop.build.integration import integrate
from codeloop.build.scaffold import scaffold
from codeloop.build.state import BuildState


def _after_scaffold(state: BuildState) -> Literal["generate", "__end__"]:
    return "__end__" if state["status"] == "FAILED" else "generate"


def build_graph(ctx: BuildContext, checkpointer: Any = None):
    from langgraph.graph import END, START, StateGraph

    from codeloop.jobs.stage import as_node

    def tasks(state: BuildState) -> str:
        return f"{state['total_tasks']} tasks, {ctx.stack.name}"

    graph = StateGraph(BuildState)
    graph.add_node("scaffold", as_node("scaffold", scaffold, ctx, tasks))
    graph.add_node("generate", as_node("generate", generate, ctx, tasks))
    graph.add_node("integrate", as_node("integrate", integrate, ctx, tasks))
    graph.add_edge(START, "scaffold")
    graph.add_conditional_edges("scaffold", _after_scaffold, {"generate": "generate",
                                                               "__end__": END})
    graph.add_edge("generate", "integrate")
    graph.add_edge("integrate", END)
    return graph.compile(checkpointer=checkpointer)
