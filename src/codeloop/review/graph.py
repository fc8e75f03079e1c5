"""The review job as a LangGraph graph:

    context_loader -> supervisor -+-> coder (implementation) -+-> security_gate -> reviewer
                                  +---------------------------+          ^           |
    reviewer -+-> human_approval -+-> persistence -> END  (approved)    |           |
              |                   +-> self_heal -> refiner (rejected) --+           |
              +-> refiner -> security_gate (not approved)                           |
              +-> END (failed: the loop is spent)  <--------------------------------+

LangGraph is imported here only (inside the functions), so `codeloop --help` never loads it.
"""

from __future__ import annotations

from typing import Any

from codeloop.review.coder import write_code
from codeloop.review.context import ReviewContext, review_node
from codeloop.review.context_loader import load_context
from codeloop.review.human_approval import ask_person
from codeloop.review.persistence import persist
from codeloop.review.refiner import refine
from codeloop.review.reviewer import review
from codeloop.review.routing import (
    after_approval,
    after_coder,
    after_gate,
    after_review,
    after_self_heal,
    after_supervisor,
)
from codeloop.review.security_gate import gate
from codeloop.review.self_heal import heal
from codeloop.review.state import MAX_ITERATIONS, MAX_REFINEMENT_ITERATIONS, ReviewState
from codeloop.review.supervisor import supervise

NODES = {"context_loader": load_context, "supervisor": supervise, "coder": write_code,
         "security_gate": gate, "reviewer": review, "refiner": refine,
         "human_approval": ask_person, "persistence": persist, "self_heal": heal}


def _detail(name: str):
    def detail(state: ReviewState) -> str:
        if name == "reviewer":
            return f"review {state['iteration'] + 1} of {MAX_ITERATIONS}"
        if name == "refiner":
            return (f"refinement {state['refinement_iteration'] + 1} of "
                    f"{MAX_REFINEMENT_ITERATIONS} ({state['refiner_mode']})")
        return state["workflow_type"]
    return detail


def build_graph(ctx: ReviewContext, checkpointer: Any = None):
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(ReviewState)
    for name, fn in NODES.items():
        graph.add_node(name, review_node(name, fn, ctx, _detail(name)))
    graph.add_edge(START, "context_loader")
    graph.add_edge("context_loader", "supervisor")
    graph.add_conditional_edges("supervisor", after_supervisor,
                                {"coder": "coder", "security_gate": "security_gate"})
    graph.add_conditional_edges("coder", after_coder,
                                {"security_gate": "security_gate", "__end__": END})
    graph.add_conditional_edges("security_gate", after_gate,
                                {"reviewer": "reviewer", "__end__": END})
    graph.add_conditional_edges("reviewer", after_review, {
        "human_approval": "human_approval", "refiner": "refiner", "__end__": END})
    graph.add_edge("refiner", "security_gate")
    graph.add_conditional_edges("human_approval", after_approval,
                                {"persistence": "persistence", "self_heal": "self_heal"})
    graph.add_edge("persistence", END)
    graph.add_conditional_edges("self_heal", after_self_heal,
                                {"refiner": "refiner", "__end__": END})
    return graph.compile(checkpointer=checkpointer)


def has_checkpoint(checkpointer: Any, thread_id: str) -> bool:
    return checkpointer.get_tuple({"configurable": {"thread_id": thread_id}}) is not None
