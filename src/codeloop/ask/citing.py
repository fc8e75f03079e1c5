"""Every answer about a repository cites: the last step of the generator for a question.

1. What the tools established is never lost: an answer that does not state what running the
   call showed ends with that observation and the definition that ran (calls.observed_line);
   one that names none of the structure facts' files ends with those facts.
2. An answer with no grounded `path:line` (grounding.py) is cited from the tools when they
   know the place (the definition that ran, the facts' lines): no model round for that.
   Otherwise one more round shows the model the places it may cite (the retrieved chunks'
   spans) and asks for the answer again; the new answer is kept when it cites.
3. An answer still without a grounded citation says so plainly, on its last line.
"""

from __future__ import annotations

import re

from codeloop.ask.calls import observed_line, states_observation, where
from codeloop.ask.context import AskContext, ask_or_none, prompt
from codeloop.ask.grounding import check_grounding
from codeloop.ask.state import AskState
from codeloop.jobs.usage import UsageRecord

UNCITED = ("(Uncited: this answer names no file and line of the repository that could be "
           "checked, so treat it as unverified.)")
MAX_PLACES = 8
_FACT_PATH = re.compile(r"([\w./-]+\.[A-Za-z0-9]{1,8}):\d+")
_QUOTED = re.compile(r"`([^`]+)`")


def grounded(text: str, ctx: AskContext) -> bool:
    return check_grounding(text, ctx.index)["grounded"] > 0


def places(state: AskState) -> str:
    """The lines an answer may cite, one a line."""
    out = []
    if state["observation"]:
        out.append(f"- {where(state['observation'])}: the definition that ran")
    out += [f"- {fact}" for fact in state["facts"][:4]]
    for chunk in state["retrieved"][:MAX_PLACES]:
        name = f" ({chunk['name']})" if chunk.get("name") else ""
        out.append(f"- {chunk['path']}:{chunk['start']}-{chunk['end']}{name}")
    for f in state["code_files"][:3]:
        out.append(f"- {f['path']}:1")
    return "\n".join(dict.fromkeys(out[:MAX_PLACES + 4])) or "- (none)"


def finish_answer(text: str, state: AskState, ctx: AskContext, usage: UsageRecord) -> str:
    obs, facts = state["observation"], state["facts"]
    if obs and not states_observation(text, obs):
        line = observed_line(obs)
        if line:
            text = f"{text}\n\n{line}"
    elif facts and not _states_facts(text, facts):
        text = f"{text}\n\n{_facts_block(facts)}"
    if grounded(text, ctx):
        return text
    # The tools know where the answer comes from: cite that, no model round needed.
    if obs:
        return f"{text}\n\nDefinition that ran: {where(obs)}"
    if facts and _FACT_PATH.search("\n".join(facts)) and _facts_block(facts) not in text:
        text = f"{text}\n\n{_facts_block(facts)}"
        if grounded(text, ctx):
            return text
    ctx.debug("generator", "thinking", "the answer cites no grounded path:line: one more "
              "round asks for it")
    reply = ask_or_none(ctx, usage, "generator", prompt("cite"), question=state["task"],
                        answer=text[:1500], places=places(state))
    if reply is not None and grounded(reply.text, ctx):
        return reply.text.strip()
    return f"{text}\n\n{UNCITED}"


def _facts_block(facts: list[str]) -> str:
    return "From the repository's tools:\n" + "\n".join(f"- {fact}" for fact in facts[:4])


def _states_facts(text: str, facts: list[str]) -> bool:
    """The answer names a file of the facts and every dependency they list (the 1.5B's
    "declared in requirements.txt at lines 2, 3, and 4" named none of the three)."""
    paths = {m.group(1) for fact in facts for m in _FACT_PATH.finditer(fact)}
    names = {m.group(1) for fact in facts if " dependency `" in fact
             if (m := _QUOTED.search(fact))}
    return ((not paths or any(path in text for path in paths))
            and all(name in text for name in names))
