"""The interactive loop: requests go to the agent, slash commands manage the conversation.

/new [name]  start a new thread      /history  this thread's requests and answers
/threads     the saved threads       /undo     revert the last turn's file changes
/help        this list               /quit     leave
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from rich.console import Console
from rich.markup import escape

from codeloop.agent.multi.view import phase_details
from codeloop.agent.render import print_turn_end
from codeloop.agent.snapshots import FileChange, SnapshotError, Snapshots

HELP = __doc__.split("\n\n", 1)[1].strip()


@dataclass
class Outcome:
    answer: str
    status: str
    steps: int
    tokens: int
    changes: list[FileChange] = field(default_factory=list)
    # multi-agent mode: the plan, the reports and the verdicts (agent/multi/view.py)
    details: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The turn as its run's result (the store, --json, the API)."""
        return {"answer": self.answer, "status": self.status, "steps": self.steps,
                "tokens": self.tokens, "changes": [c.as_dict() for c in self.changes],
                **self.details}


class Conversation(Protocol):
    """What the REPL drives: the single-agent session or the multi-agent runner."""

    def ask(self, request: str) -> Outcome: ...
    def undo(self) -> str: ...
    def new_thread(self, name: str | None = None) -> str: ...
    def threads(self) -> list[str]: ...
    def history(self) -> list[dict]: ...


def run_repl(conversation: Conversation, read_line: Callable[[], str | None],
             console: Console) -> None:
    console.print("[dim]codeloop agent. Type a request, or /help.[/]")
    while True:
        line = read_line()
        if line is None:  # end of input
            return
        line = line.strip()
        if not line:
            continue
        if line.startswith("/"):
            if not _command(conversation, line, console):
                return
            continue
        outcome = conversation.ask(line)
        print_turn_end(console, outcome.answer, outcome.status, outcome.steps, outcome.tokens,
                       outcome.changes, outcome.details)


def _command(conversation: Conversation, line: str, console: Console) -> bool:
    """Run a slash command; False means quit."""
    name, _, argument = line.partition(" ")
    if name in ("/quit", "/exit"):
        return False
    if name == "/new":
        console.print(f"New thread: {escape(conversation.new_thread(argument.strip() or None))}")
    elif name == "/history":
        items = conversation.history()
        if not items:
            console.print("[dim]This thread is empty.[/]")
        for item in items:
            who = "you" if item["kind"] == "request" else (
                "note" if item["kind"] == "note" else "agent")
            console.print(f"[bold]{who}[/] (turn {item['turn']}): {escape(item['content'])}",
                          highlight=False)
    elif name == "/threads":
        names = conversation.threads()
        console.print("\n".join(escape(n) for n in names) if names else "[dim]No threads yet.[/]")
    elif name == "/undo":
        console.print(escape(conversation.undo()))
    elif name == "/help":
        console.print(escape(HELP))
    else:
        console.print(f"Unknown command {escape(name)}. " + escape(HELP))
    return True


class SessionConversation:
    """The single-agent session seen through the REPL's interface."""

    def __init__(self, session) -> None:
        self.session = session

    def ask(self, request: str) -> Outcome:
        result = self.session.ask(request)
        return Outcome(result.answer, result.status, result.steps, result.tokens,
                       result.changes)

    def undo(self) -> str:
        return self.session.undo()

    def new_thread(self, name: str | None = None) -> str:
        return self.session.new_thread(name)

    def threads(self) -> list[str]:
        return self.session.threads()

    def history(self) -> list[dict]:
        return self.session.history()


class MultiAgentConversation:
    """Multi-agent mode in the REPL: each request is a full plan-implement-validate run.
    It keeps no conversation memory; /undo reverts the last run's file changes."""

    def __init__(self, run: Callable[[str], object], snapshots: Snapshots) -> None:
        self.run, self.snapshots = run, snapshots
        self.turns: list[tuple[str, str, str]] = []  # (request, before, after)

    def ask(self, request: str) -> Outcome:
        before = self.snapshots.take()
        result = self.run(request)
        after = self.snapshots.take()
        self.turns.append((request, before, after))
        summary = (result.validations[-1].changes_summary if result.validations
                   else "; ".join(result.notes) or "no result")
        return Outcome(f"{result.status}: {summary}", result.status, result.steps,
                       result.tokens, self.snapshots.changes(before, after),
                       phase_details(result))

    def undo(self) -> str:
        while self.turns:
            request, before, after = self.turns.pop()
            if before != after:
                try:
                    return "Reverted: " + ", ".join(self.snapshots.restore(before, after))
                except SnapshotError as exc:
                    self.turns.append((request, before, after))
                    return str(exc)
        return "Nothing to undo."

    def new_thread(self, name: str | None = None) -> str:
        self.turns.clear()
        return name or "multi-agent (no memory)"

    def threads(self) -> list[str]:
        return []

    def history(self) -> list[dict]:
        return [{"kind": "request", "turn": i + 1, "content": t[0]}
                for i, t in enumerate(self.turns)]
