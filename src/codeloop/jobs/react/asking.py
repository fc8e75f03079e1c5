"""Asking the model for one step's action, under a JSON schema.

two_step (the default): call 1 gets {"thought", "tool"} with the tool an enum; call 2 gets
the same messages plus call 1's reply and a request for that tool's arguments, under exactly
that tool's arguments schema. Two small grammars decode much faster under llama.cpp than
one union of every tool, and a small model fails them less often. A tool with text
arguments (write_file's content, edit_file's old and new text) gets one more call per text:
that text as a ``` block in a plain reply, left out of call 2's schema (jobs/react/text_args.py).
one_schema: one call under `action_schema` (a union with one branch per tool).

Either way the result is one Action and the tokens of every call; each call goes through
the kit's `ask_model`, which emits its LLMCall event. When the prompt overflows the context, less history is shown and the call
is tried again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, overload

from codeloop.events import EventBus
from codeloop.jobs.react.actions import (
    FINISH,
    Action,
    action_schema,
    args_schema,
    choice_schema,
    make_action,
    parse_action,
)
from codeloop.jobs.react.history import conversation_for_model, merge_same_roles
from codeloop.jobs.react.progress import unread_change
from codeloop.jobs.react.prompts import loop_text
from codeloop.jobs.react.state import AgentSpec, AgentState, new_progress
from codeloop.jobs.react.text_args import TextReplyError, parse_text_reply, text_request
from codeloop.jobs.stage import ask_model
from codeloop.llm.base import (
    LLM,
    ContextOverflow,
    InvalidStructuredOutput,
    JsonReply,
    Reply,
    Usage,
)

MIN_HISTORY_CHARS = 2_000  # below this, a context overflow is not retried with less history


@dataclass
class Asked:
    action: Action
    tokens: int


class Asker:
    """Asks `llm` for the next action of the agent `spec`, in its limits' action mode."""

    def __init__(self, llm: LLM, spec: AgentSpec, bus: EventBus | None) -> None:
        if spec.limits.action_mode not in ("two_step", "one_schema"):
            raise ValueError(f"unknown action mode {spec.limits.action_mode!r}; "
                             "use two_step or one_schema")
        self.llm, self.spec, self.bus = llm, spec, bus
        self.tools = list(spec.toolbox.tools.values())

    def ask(self, state: AgentState, extra: list[dict[str, str]],
            exclude: frozenset[str] = frozenset()) -> Asked:
        """`extra` messages follow the conversation; `exclude` drops tools from the choice."""
        budget = self.spec.limits.history_chars
        if self.spec.limits.action_mode == "one_schema":
            schema = action_schema(self.tools, self.spec.finish_schema, exclude)
            result, _ = self._call(state, extra, schema, budget)
            return Asked(parse_action(result.data), result.reply.usage.total_tokens)
        choice, budget = self._call(state, extra, choice_schema(self.tools, exclude), budget)
        tool = choice.data["tool"]
        follow = extra + [
            {"role": "assistant", "content": json.dumps(choice.data, ensure_ascii=False)},
            {"role": "user", "content": loop_text("args_request", tool=tool,
                                                  description=self._description(tool))},
        ]
        text_args = self.spec.toolbox.tools[tool].text_args if tool != FINISH else ()
        spent = choice.reply.usage
        try:
            if not text_args:
                args, _ = self._call(state, follow,
                                     args_schema(tool, self.tools, self.spec.finish_schema),
                                     budget)
                spent += args.reply.usage
                data = args.data
            else:
                data, texts_spent = self._args_and_texts(state, follow, tool, budget)
                spent += texts_spent
        except InvalidStructuredOutput as exc:  # the tokens before it were spent too
            raise InvalidStructuredOutput(f"arguments of {tool}: {exc}",
                                          spent + exc.usage) from exc
        return Asked(make_action(choice.data["thought"], tool, data), spent.total_tokens)

    def _args_and_texts(self, state: AgentState, follow: list[dict[str, str]], tool: str,
                        budget: int) -> tuple[dict[str, Any], Usage]:
        """A tool with text arguments: the others as JSON, then each text as a ``` block in
        a plain reply of its own (jobs/react/text_args.py says why). Returns the arguments and
        the tokens of these calls."""
        chosen, box = self.spec.toolbox.tools[tool], self.spec.toolbox
        args, _ = self._call(state, follow,
                             chosen.parameters_schema(all_required=True,
                                                      exclude=chosen.text_args), budget)
        spent, data = args.reply.usage, dict(args.data)
        if unread_change(state.get("progress") or new_progress(), tool, data, box.workspace):
            return data, spent  # refused before it runs (read the file first): no text needed
        exists = box.workspace.is_file(str(data.get("path") or ""))
        follow = follow + [{"role": "assistant",
                            "content": json.dumps(args.data, ensure_ascii=False)}]
        for name in chosen.text_args:
            follow.append({"role": "user",
                           "content": text_request(chosen, name, data, exists)})
            reply, _ = self._call(state, follow, None, budget,
                                  max_tokens=self.spec.limits.max_tokens_per_text)
            spent += reply.usage
            try:
                data[name] = parse_text_reply(reply.text, name,
                                              cut_off=reply.finish_reason == "length")
            except TextReplyError as exc:
                raise InvalidStructuredOutput(str(exc), spent) from exc
            follow.append({"role": "assistant", "content": reply.text})
        return data, spent

    def ask_finish(self, state: AgentState, note: str) -> Asked:
        """Only `finish` is left: its arguments in one call, after `note` (why the turn must
        end now). A stopped turn still gets the agent's output: a plan, a report, a summary."""
        result, _ = self._call(state, [{"role": "user", "content": note}],
                               self.spec.finish_schema, self.spec.limits.history_chars)
        return Asked(make_action("", FINISH, result.data), result.reply.usage.total_tokens)

    @overload
    def _call(self, state: AgentState, extra: list[dict[str, str]], schema: dict[str, Any],
              budget: int, max_tokens: int | None = None) -> tuple[JsonReply, int]: ...

    @overload
    def _call(self, state: AgentState, extra: list[dict[str, str]], schema: None,
              budget: int, max_tokens: int | None = None) -> tuple[Reply, int]: ...

    def _call(self, state, extra, schema, budget, max_tokens=None):
        """One model call, under `schema` (None: plain text); returns its reply and the
        history budget it fitted in."""
        limits = self.spec.limits
        max_tokens = max_tokens or limits.max_tokens_per_step
        while True:
            messages = ([{"role": "system", "content": self.spec.system_prompt}]
                        + merge_same_roles(
                            conversation_for_model(state["messages"], state["turn"], budget)
                            + extra))
            try:
                result = ask_model(self.llm, messages, stage=self.spec.name, bus=self.bus,
                                   max_tokens=max_tokens, temperature=limits.temperature,
                                   schema=schema)
            except ContextOverflow:
                if budget < MIN_HISTORY_CHARS:
                    raise
                budget //= 2  # show less history and try again
                continue
            return result, budget

    def _description(self, tool: str) -> str:
        if tool == FINISH:
            return loop_text("finish_description")
        text = self.spec.toolbox.tools[tool].description.strip()
        return text.splitlines()[0] if text else tool
