"""Where the review graph goes after each branching node. Routers read the state only;
the nodes themselves set `workflow_status` (failed, blocked) when a loop is spent."""

from __future__ import annotations

from typing import Literal

from codeloop.review.state import ReviewState


def after_supervisor(state: ReviewState) -> Literal["coder", "security_gate"]:
    return "coder" if state["workflow_type"] == "implementation" else "security_gate"


def after_coder(state: ReviewState) -> Literal["security_gate", "__end__"]:
    return "__end__" if state["workflow_status"] == "failed" else "security_gate"


def after_gate(state: ReviewState) -> Literal["reviewer", "__end__"]:
    return "__end__" if state["workflow_status"] == "failed" else "reviewer"


def after_review(state: ReviewState) -> Literal["human_approval", "refiner", "__end__"]:
    if state["is_fixed"]:
        return "human_approval"
    return "__end__" if state["workflow_status"] == "failed" else "refiner"


def after_approval(state: ReviewState) -> Literal["persistence", "self_heal"]:
    return "persistence" if state["approval_status"] == "approved" else "self_heal"


def after_self_heal(state: ReviewState) -> Literal["refiner", "__end__"]:
    return "refiner" if state["workflow_status"] == "running" else "__end__"
