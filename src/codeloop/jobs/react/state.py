"""The ReAct agent's state: a conversation (kept across turns of a thread) plus per-turn
counters that every new request resets; and the agent itself (AgentSpec, AgentLimits)."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

from codeloop.tools.toolbox import Toolbox

Status = Literal["running", "finished", "step_cap", "token_budget", "loop", "error"]
MessageKind = Literal["request", "context", "action", "observation", "answer", "note"]
Role = Literal["system", "user", "assistant"]
# How each step's action is asked for (jobs/react/asking.py): two small constrained calls (the
# tool, then its arguments) or one call with a union of every tool's arguments.
ActionMode = Literal["two_step", "one_schema"]
# A changed file's state this turn (jobs/react/progress.py): not linted since the change, or
# what its last lint said. The tests: "" (not run since the last change) or their outcome.
FileState = Literal["changed", "lint clean", "lint problems"]
TestsState = Literal["", "passed", "failed", "none found"]


class AgentMessage(TypedDict):
    role: Role
    content: str
    kind: MessageKind
    turn: int


class Progress(TypedDict):
    """What this turn got done (jobs/react/progress.py)."""

    files: dict[str, FileState]  # the files this turn changed
    tests: TestsState
    looked: list[str]  # a read-only agent's looks, newest last ("read a.py")
    known: list[str]  # files whose current text the model has seen this turn (read/written)
    finish_checked: bool  # a finish was already held back once this turn (unfinished_work)


class AgentState(TypedDict):
    messages: Annotated[list[AgentMessage], operator.add]  # appended to, never rewritten
    turn: int
    steps: int
    tokens: int
    seen: dict[str, int]  # action signature -> times chosen this turn
    moves: list[str]  # this turn's moves (tool:target), for the cycle detector (cycles.py)
    invalid_replies: int  # replies in a row that were not valid actions
    files_version: int  # bumped by every successful file-changing tool
    status: Status
    answer: str
    result: dict[str, Any]  # the finish arguments (structured output of a phase agent)
    pending: dict[str, Any] | None  # the action `think` chose and `act` runs
    progress: Progress
    snapshot_before: str  # workspace tree before this turn ("" when not tracked)
    # One record per finished turn: {"turn", "request", "before", "after", "changed"}.
    turns: Annotated[list[dict[str, Any]], operator.add]
    undone: Annotated[list[int], operator.add]
    budget: int  # this turn's token budget when lower than the limits' (0: theirs)


def message(role: Role, content: str, kind: MessageKind, turn: int) -> AgentMessage:
    return AgentMessage(role=role, content=content, kind=kind, turn=turn)


def new_progress() -> Progress:
    return Progress(files={}, tests="", looked=[], known=[], finish_checked=False)


def new_turn_input(request: str, turn: int, snapshot_before: str = "",
                   context: str = "") -> dict[str, Any]:
    """The update that starts a turn: the request (and `context`, what the model is told
    with it this turn only) plus every per-turn field reset."""
    messages = [message("user", request, "request", turn)]
    if context:
        messages.append(message("user", context, "context", turn))
    return {
        "messages": messages,
        "turn": turn, "steps": 0, "tokens": 0, "seen": {}, "moves": [], "invalid_replies": 0,
        "files_version": 0, "status": "running", "answer": "", "result": {}, "pending": None,
        "budget": 0,
        "progress": new_progress(),
        "snapshot_before": snapshot_before, "turns": [], "undone": [],
    }


@dataclass(frozen=True)
class AgentLimits:
    max_steps: int = 20
    token_budget: int = 60_000  # prompt + completion tokens per turn
    # What the tools get after a context-first edit that failed all its rounds. Measured on
    # the 24-task suite with the 1.5B (two runs, commits 288fa8f and 620f0f0): of the runs
    # that went on to the tools, one passed (at 12k tokens in all); the others failed after
    # 22-73k tokens. A user with a stronger model can raise it (or token_budget).
    after_direct_budget: int = 24_000
    max_tokens_per_step: int = 1024
    # A file's text written as ``` blocks (two_step). As for the JSON it replaced: a small
    # model that loops inside a block is cut here (the 1.5B once ran 2,048 tokens, 159 s).
    max_tokens_per_text: int = 1024
    history_chars: int = 16_000  # the conversation shown to the model, beyond the system prompt
    temperature: float = 0.0
    action_mode: ActionMode = "two_step"


@dataclass
class AgentSpec:
    """One agent: its name (used as the event stage), prompt, tools and finish schema."""

    name: str
    system_prompt: str
    toolbox: Toolbox
    finish_schema: dict[str, Any]
    limits: AgentLimits = field(default_factory=AgentLimits)
