"""A conversation with the single agent: turns on a checkpointed thread, the files each turn
changed, and undo of the last turn's changes.

Threads live in the run store's LangGraph checkpointer under the id
`agent:<workspace key>:<name>`, so `--thread NAME` continues a conversation after the
program restarts. The store is one file per user; the workspace key (a hash of the resolved
workspace path) keeps each project's threads to itself: a request made in one workspace
never reaches the model in another, and /threads lists this workspace's only.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeloop.agent.overview import workspace_overview
from codeloop.agent.snapshots import FileChange, SnapshotError, Snapshots
from codeloop.events import EventBus, StageEnd, StageStart
from codeloop.jobs.react.context_first import ContextFirst
from codeloop.jobs.react.react import AgentSpec, build_react_graph, recursion_limit
from codeloop.jobs.react.state import message, new_turn_input
from codeloop.llm.base import LLM
from codeloop.store import saved_threads

THREAD_PREFIX = "agent:"


def thread_prefix(workspace_root: Path) -> str:
    """The checkpointer id prefix of one workspace's agent threads."""
    key = hashlib.sha256(os.fsencode(Path(workspace_root).resolve())).hexdigest()[:16]
    return f"{THREAD_PREFIX}{key}:"


@dataclass(frozen=True)
class TurnResult:
    turn: int
    status: str  # finished, step_cap, token_budget, loop, error
    answer: str
    steps: int
    tokens: int
    changes: list[FileChange] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)


class AgentSession:
    def __init__(self, llm: LLM, spec: AgentSpec, *, checkpointer: Any,
                 snapshots: Snapshots | None, thread: str = "default",
                 bus: EventBus | None = None, context_first: bool = True) -> None:
        self.spec, self.snapshots, self.bus = spec, snapshots, bus
        self.checkpointer = checkpointer
        self.thread = thread
        self.prefix = thread_prefix(spec.toolbox.workspace.root)
        # Context first (jobs/react/context_first.py): a request naming files gets one direct
        # edit-and-test attempt before the tools; `context_first=False` is the tools alone.
        opening = ContextFirst(llm, spec, bus) if context_first else None
        self.graph = build_react_graph(llm, spec, bus=bus, checkpointer=checkpointer,
                                       on_turn_end=self._record_turn, opening=opening)

    # ------------------------------------------------------------------ threads
    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.prefix + self.thread},
                "recursion_limit": recursion_limit(self.spec.limits)}

    def values(self) -> dict[str, Any]:
        return dict(self.graph.get_state(self.config).values or {})

    def new_thread(self, name: str | None = None) -> str:
        self.thread = name or time.strftime("chat-%Y%m%d-%H%M%S")
        return self.thread

    def threads(self) -> list[str]:
        """This workspace's threads only (the store reads its own tables)."""
        return saved_threads(self.checkpointer, self.prefix)

    def history(self) -> list[dict[str, Any]]:
        """The thread's requests, answers and notes, in order."""
        return [m for m in self.values().get("messages", [])
                if m["kind"] in ("request", "answer", "note")]

    # ------------------------------------------------------------------ turns
    def ask(self, request: str) -> TurnResult:
        if not request.strip():
            raise ValueError("the request is empty")
        turn = int(self.values().get("turn", 0)) + 1
        before = self.snapshots.take() if self.snapshots else ""
        if self.bus is not None:
            self.bus.emit(StageStart(stage=self.spec.name, detail=request))
        started = time.perf_counter()
        context = workspace_overview(self.spec.toolbox.workspace)
        final = self.graph.invoke(new_turn_input(request, turn, before, context), self.config)
        record = next((t for t in reversed(final.get("turns", [])) if t["turn"] == turn), {})
        changes = [FileChange(**c) for c in record.get("changed", [])]
        result = TurnResult(turn, final["status"], final["answer"], final["steps"],
                            final["tokens"], changes, final.get("result") or {})
        if self.bus is not None:
            self.bus.emit(StageEnd(stage=self.spec.name, seconds=time.perf_counter() - started,
                                   output=result.answer, ok=result.status == "finished"))
        return result

    def _record_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        request = next((m["content"] for m in state["messages"]
                        if m["turn"] == state["turn"] and m["kind"] == "request"), "")
        before = state.get("snapshot_before", "")
        after, changed = "", []
        if self.snapshots is not None and before:
            after = self.snapshots.take()
            changed = [c.as_dict() for c in self.snapshots.changes(before, after)]
        return {"turns": [{"turn": state["turn"], "request": request, "before": before,
                           "after": after, "changed": changed}]}

    # ------------------------------------------------------------------ undo
    def undo(self) -> str:
        """Revert the file changes of the latest turn not yet undone; a message for the user."""
        if self.snapshots is None:
            return "Undo needs the workspace to be a git repository."
        values = self.values()
        undone = set(values.get("undone", []))
        candidates = [t for t in values.get("turns", [])
                      if t["turn"] not in undone and t.get("changed")]
        if not candidates:
            return "Nothing to undo: no turn in this thread changed files (or all are undone)."
        last = candidates[-1]
        try:
            reverted = self.snapshots.restore(last["before"], last["after"])
        except SnapshotError as exc:
            return str(exc)
        note = (f"(The user undid turn {last['turn']}: its file changes were reverted: "
                f"{', '.join(reverted)}.)")
        self.graph.update_state(
            self.config,
            {"undone": [last["turn"]], "messages": [message("user", note, "note", last["turn"])]},
            as_node="wrap_up",
        )
        return f"Reverted turn {last['turn']} ({last['request'][:60]!r}): {', '.join(reverted)}"
