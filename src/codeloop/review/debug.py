"""DebugLog emission: every review node tells what it thought, called, prompted, got or
failed at, with the tokens it cost, on the run's event stream (the terminal's --debug view
and the web UI's debug panel) and in the state's `debug_logs`."""

from __future__ import annotations

import time
from typing import Any, Literal

from codeloop.events import DebugLog, EventBus, TokenUsage
from codeloop.llm.base import Usage

DebugType = Literal["thinking", "tool_call", "prompt", "result", "error"]
MAX_CONTENT = 2000  # a log line shows what happened, not a whole file

# Which agent speaks for each node (the seed's names).
AGENTS = {
    "context_loader": "ContextLoader", "supervisor": "Supervisor", "coder": "Coder",
    "security_gate": "SecurityGate", "reviewer": "Reviewer", "refiner": "Refiner",
    "human_approval": "HumanApproval", "persistence": "Persistence", "self_heal": "SelfHeal",
}


class DebugTrail:
    """One node run's debug logs: each emitted at once and kept for the state."""

    def __init__(self, bus: EventBus, node: str) -> None:
        self.bus = bus
        self.node = node
        self.agent = AGENTS.get(node, node)
        self.entries: list[dict[str, Any]] = []

    def log(self, event_type: DebugType, content: str, metadata: dict[str, Any] | None = None,
            usage: Usage | None = None) -> None:
        usage = usage or Usage()
        tokens = TokenUsage(prompt_tokens=usage.prompt_tokens,
                            completion_tokens=usage.completion_tokens,
                            total_tokens=usage.total_tokens)
        text = content if len(content) <= MAX_CONTENT else content[:MAX_CONTENT] + " …"
        event = DebugLog(node=self.node, agent=self.agent, event_type=event_type, content=text,
                         metadata=dict(metadata or {}), token_usage=tokens, ts=time.time())
        self.bus.emit(event)
        self.entries.append({"timestamp": event.ts, "node": self.node, "agent": self.agent,
                             "event_type": event_type, "content": text,
                             "metadata": event.metadata, "token_usage": tokens.model_dump()})
