"""The five stages as a LangGraph graph. By default generation drafts first, from the task
alone, and the thinking stages run only for a draft that review finds wrong:

    START -> generation (draft) -> review -+-> END                          (correct)
                                           +-> planning -> generation -> review
    ... -> review -+-> END                  (correct, or the refinement rounds are spent)
           ^       |
           +-- refinement <-+                (has issues; a round may draw a second
                                              sample before the next: see rounds.py)
    review -> crosscheck -> END              (correct, but the task has no test at all;
                                              only when asked for: see crosscheck.py)
    review -> vote -> END                    (correct only after a failed draft: an
                                              independent sample may outvote it: vote.py)

Why: on HumanEval the 1.5B model's draft from the plain prompt is right 69 % of the time,
and analysis plus planning cost ~700 tokens before any code exists (and a plan sometimes
makes a right answer wrong). After a wrong draft the plan is made in one call that is given
the draft's failure, without the separate analysis call: on the failed drafts that cut the
tokens by 15-16 % (HumanEval and MBPP), and the planned generation won as often as with
analysis (benchmarks/results/*-failed-drafts). With `draft_first=False` the stages run in
the classic order
analysis -> planning -> generation -> review -> refinement for every task.

LangGraph is imported here only, so `codeloop --help` never loads it.
"""

from __future__ import annotations

from typing import Any, Literal

from codeloop.solve.analysis import analyse
from codeloop.solve.crosscheck import crosscheck, needs_crosscheck
from codeloop.solve.generation import generate
from codeloop.solve.planning import plan
from codeloop.solve.refinement import refine
from codeloop.solve.stage import SolveContext, solve_node
from codeloop.solve.state import SETTLED, SolveState
from codeloop.solve.verify import review
from codeloop.solve.vote import needs_vote, vote

STAGE_ORDER = ("analysis", "planning", "generation", "review", "refinement", "crosscheck",
               "vote")


def after_review(state: SolveState, ctx: SolveContext
                 ) -> Literal["planning", "refinement", "crosscheck", "vote", "__end__"]:
    """Stop when the code is correct or the refinement rounds are spent; a wrong draft
    goes to planning first; a round may draw a second sample (rounds.py); correct code
    that crashes on an edge call gets a round to fix it (solve/edges.py); with
    `ctx.crosscheck`, correct code that no test checked is cross-checked; code that passes
    only after a failed draft meets an independent sample (vote.py), last of all. Untested
    code (no test ran) has no failure to refine on: it ends, or is cross-checked."""
    if state["review"]["verdict"] in SETTLED:
        if ctx.edge_round(state):
            return "refinement"
        if needs_vote(state, ctx.vote_calls):
            return "vote"
        return "crosscheck" if ctx.crosscheck and needs_crosscheck(state) else "__end__"
    if state["candidate_strategy"] == "draft":
        return "planning"
    if ctx.another_sample(state):
        return "refinement"
    if state["refinement_count"] >= state["max_refinements"]:
        return "__end__"
    return "refinement"


def build_graph(ctx: SolveContext, checkpointer: Any = None):
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(SolveState)
    stages = {"analysis": analyse, "planning": plan, "generation": generate, "review": review,
              "refinement": refine, "crosscheck": crosscheck, "vote": vote}
    for name, stage in stages.items():
        graph.add_node(name, solve_node(name, stage, ctx))
    graph.add_edge(START, "generation" if ctx.draft_first else "analysis")
    graph.add_edge("analysis", "planning")
    graph.add_edge("planning", "generation")
    graph.add_edge("generation", "review")
    graph.add_conditional_edges("review", lambda s: after_review(s, ctx), {
        "planning": "planning", "refinement": "refinement", "crosscheck": "crosscheck",
        "vote": "vote", "__end__": END})
    graph.add_edge("refinement", "review")
    graph.add_edge("crosscheck", END)
    graph.add_edge("vote", END)
    return graph.compile(checkpointer=checkpointer)
