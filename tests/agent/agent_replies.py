"""Helpers to script model replies in the agent's action shape.

A test writes one logical action per step with `act`/`finish`; `script` turns them into the
replies the model gives in an action mode: two per step in two_step mode (the thought and
tool, then the arguments), plus one per text argument of a tool that has them (the text as
a ``` block, as the real asker wants it), one in one_schema mode. `unread(step)`: a change
to a file not read this turn, refused before its texts are asked for. Other items (a raw reply
string, a {"raise": ...} mapping) pass through as one reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from codeloop.llm.scripted import ScriptedLLM
from codeloop.tools import ALL_TOOLS

ARGS_REQUEST = "Now give the arguments for "
TEXT_REQUEST = "Now write "
TEXT_ARGS = {tool.name: tool.text_args for tool in ALL_TOOLS}


@dataclass(frozen=True)
class Step:
    tool: str
    thought: str
    args: dict[str, Any] = field(default_factory=dict)
    texts_asked: bool = True

    def replies(self, mode: str) -> list[str]:
        if mode == "one_schema":
            return [json.dumps({"thought": self.thought,
                                "action": {"tool": self.tool, "args": self.args}})]
        choice = json.dumps({"thought": self.thought, "tool": self.tool})
        texts = TEXT_ARGS.get(self.tool, ())
        if not texts:
            return [choice, json.dumps(self.args)]
        others = {k: v for k, v in self.args.items() if k not in texts}
        blocks = [f"```\n{self.args[name]}\n```" for name in texts] if self.texts_asked else []
        return [choice, json.dumps(others), *blocks]


def act(tool: str, thought: str = "", **args) -> Step:
    """One step of the model: use `tool` with `args`."""
    return Step(tool, thought or f"use {tool}", args)


def unread(step: Step) -> Step:
    """`step` on a file the turn has not read: refused after its path, so no texts."""
    return replace(step, texts_asked=False)


def finish(answer: str) -> Step:
    return act("finish", "done", answer=answer)


def script(*items: Step | str | dict, mode: str = "two_step") -> list[str | dict]:
    """The scripted model's replies for these steps in `mode`."""
    replies: list[str | dict] = []
    for item in items:
        replies += item.replies(mode) if isinstance(item, Step) else [item]
    return replies


def scripted(*items: Step | str | dict, mode: str = "two_step") -> ScriptedLLM:
    return ScriptedLLM(script(*items, mode=mode))


def action_prompts(llm: ScriptedLLM) -> list[list]:
    """The messages of each call that chose an action: every call but two_step's requests
    for arguments and texts. Index k is the prompt of the k-th choice, as in one_schema mode."""
    return [call for call in llm.calls
            if not (call and call[-1].role == "user"
                    and call[-1].content.startswith((ARGS_REQUEST, TEXT_REQUEST)))]
