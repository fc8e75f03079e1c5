"""The six nodes as a LangGraph graph:

    START -> planner -+-> repo_analyzer -> reasoner -> reflector -+-> generator -> evaluator -> END
                      +-----------------------^                   |
                      ^-------------- continue / retry -----------+

The planner sends repository work (the four tools, retrieval, reading named files) to
repo_analyzer and everything else straight to the reasoner; the reflector loops back to the
planner (bounded by `max_iterations`) or lets the generator write.

LangGraph is imported here only, so `codeloop --help` never loads it.
"""

from __future__ import annotations

from typing import Any, Literal

from codeloop.ask.context import AskContext, ask_node
from codeloop.ask.evaluator import evaluate
from codeloop.ask.generator import generate
from codeloop.ask.planner import plan
from codeloop.ask.reasoner import reason
from codeloop.ask.reflector import after_reflection, reflect
from codeloop.ask.repo_analyzer import analyze
from codeloop.ask.state import AskState

NODES = ("planner", "repo_analyzer", "reasoner", "reflector", "generator", "evaluator")


def after_planning(state: AskState) -> Literal["repo_analyzer", "reasoner"]:
    if state["repo"] is not None and state["next_action"] in (
            "analyze_repository", "retrieve", "read_files"):
        return "repo_analyzer"
    return "reasoner"


def recursion_limit(max_iterations: int) -> int:
    """Four nodes per loop at most, plus generator and evaluator, with room to spare."""
    return 4 * max_iterations + 10


def build_graph(ctx: AskContext, checkpointer: Any = None):
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(AskState)
    graph.add_node("planner", ask_node("planner", plan, ctx))
    graph.add_node("repo_analyzer", ask_node("repo_analyzer", analyze, ctx))
    graph.add_node("reasoner", ask_node("reasoner", reason, ctx))
    graph.add_node("reflector", ask_node("reflector", reflect, ctx))
    graph.add_node("generator", ask_node("generator", generate, ctx))
    graph.add_node("evaluator", ask_node("evaluator", evaluate, ctx))
    graph.add_edge(START, "planner")
    graph.add_conditional_edges("planner", after_planning,
                                {"repo_analyzer": "repo_analyzer", "reasoner": "reasoner"})
    graph.add_edge("repo_analyzer", "reasoner")
    graph.add_edge("reasoner", "reflector")
    graph.add_conditional_edges("reflector", after_reflection,
                                {"generator": "generator", "planner": "planner"})
    graph.add_edge("generator", "evaluator")
    graph.add_edge("evaluator", END)
    return graph.compile(checkpointer=checkpointer)
