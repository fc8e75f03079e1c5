"""The ReAct agent's state: a conversation (kept across turns of a thread) plus per-turn
counters that every new request resets."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict

from codeloop.agent.progress import new_progress

Status = Literal["running", "finished", "step_cap", "token_budget", "loop", "error"]
MessageKind = Literal["request", "context", "action", "observation", "answer", "note"]
# How each step's action is asked for (agent/asking.py): two small constrained calls (the
# tool, then its arguments) or one call with a union of every tool's arguments.
ActionMode = Literal["two_step", "one_schema"]


class AgentState(TypedDict):
    # {"role", "content", "kind", "turn"}; appended to, never rewritten.
    messages: Annotated[list[dict[str, Any]], operator.add]
    turn: int
    steps: int
    tokens: int
    seen: dict[str, int]  # action signature -> times chosen this turn
    files_version: int  # bumped by every successful file-changing tool
    status: Status
    answer: str
    result: dict[str, Any]  # the finish arguments (structured output of a phase agent)
    pending: dict[str, Any] | None  # the action `think` chose and `act` runs
    progress: dict[str, Any]  # what this turn got done (agent/progress.py)
    snapshot_before: str  # workspace tree before this turn ("" when not tracked)
    # One record per finished turn: {"turn", "request", "before", "after", "changed"}.
    turns: Annotated[list[dict[str, Any]], operator.add]
    undone: Annotated[list[int], operator.add]


def message(role: str, content: str, kind: MessageKind, turn: int) -> dict[str, Any]:
    return {"role": role, "content": content, "kind": kind, "turn": turn}


def new_turn_input(request: str, turn: int, snapshot_before: str = "",
                   context: str = "") -> dict[str, Any]:
    """The update that starts a turn: the request (and `context`, what the model is told
    with it this turn only) plus every per-turn field reset."""
    messages = [message("user", request, "request", turn)]
    if context:
        messages.append(message("user", context, "context", turn))
    return {
        "messages": messages,
        "turn": turn, "steps": 0, "tokens": 0, "seen": {}, "files_version": 0,
        "status": "running", "answer": "", "result": {}, "pending": None,
        "progress": new_progress(),
        "snapshot_before": snapshot_before, "turns": [], "undone": [],
    }


@dataclass(frozen=True)
class AgentLimits:
    max_steps: int = 20
    token_budget: int = 60_000  # prompt + completion tokens per turn
    max_tokens_per_step: int = 1024
    # A file's text written as ``` blocks (two_step). As for the JSON it replaced: a small
    # model that loops inside a block is cut here (the 1.5B once ran 2,048 tokens, 159 s).
    max_tokens_per_text: int = 1024
    history_chars: int = 16_000  # the conversation shown to the model, beyond the system prompt
    temperature: float = 0.0
    action_mode: ActionMode = "two_step"
