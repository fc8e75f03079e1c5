"""The ReAct loop as a LangGraph graph: think (the model picks one action) -> act (the tool
runs, its result becomes an observation) -> think ... until the model finishes, or a step
cap, token budget or repeated action stops it with an explanation.

    START -> think -> act -> think ... ; think/act -> wrap_up -> END

With an `opening` (the single agent's context-first edit, jobs/react/context_first.py):
    START -> opening -> think ... ; opening -> wrap_up when it finished the turn
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from codeloop.events import EventBus, Progress
from codeloop.jobs.react.actions import FINISH, Action
from codeloop.jobs.react.asking import Asked, Asker
from codeloop.jobs.react.cycles import cycle, move
from codeloop.jobs.react.progress import progress_note, record, unfinished_work, unread_change
from codeloop.jobs.react.prompts import loop_text
from codeloop.jobs.react.state import AgentLimits, AgentSpec, AgentState, message, new_progress
from codeloop.jobs.request_files import is_test_path, protects_tests
from codeloop.llm.base import LLM, InvalidStructuredOutput, LLMError
from codeloop.redaction import redact_secrets
from codeloop.tools.toolbox import ToolOutcome

__all__ = ["AgentSpec", "build_react_graph", "recursion_limit"]  # AgentSpec: jobs/react/state.py

MAX_INVALID_REPLIES = 3
CYCLE_KEY = "#cycles"  # in `seen`: cycles already broken this turn


class _Loop:
    """The nodes, closed over what is not state: the model, the tools, the event bus."""

    def __init__(self, llm: LLM, spec: AgentSpec, bus: EventBus | None,
                 on_turn_end: Callable[[dict[str, Any]], dict[str, Any]] | None) -> None:
        self.spec, self.bus, self.on_turn_end = spec, bus, on_turn_end
        self.asker = Asker(llm, spec, bus)
        # An agent with no file-changing tool (planner, validator) produces only its finish.
        self.read_only = not any(t.mutates_files for t in spec.toolbox.tools.values())

    # ------------------------------------------------------------------ nodes
    def think(self, state: AgentState) -> dict[str, Any]:
        limits, turn = self.spec.limits, state["turn"]
        if state["steps"] >= limits.max_steps:
            return self._stop_with_output(state, "step_cap",
                                          f"Stopped: reached the step cap ({limits.max_steps} "
                                          "steps) before the task was finished.")
        budget = min(limits.token_budget, state.get("budget") or limits.token_budget)
        if state["tokens"] >= budget:
            why = ("the budget left for the tools after a direct edit that failed"
                   if budget < limits.token_budget else "the token budget")
            return self._stop(state, "token_budget",
                              f"Stopped: used {state['tokens']} tokens, over {why} "
                              f"of {budget}, before the task was finished.")
        seen = dict(state["seen"])
        try:
            asked = self.asker.ask(state, [])
        except InvalidStructuredOutput as exc:
            return self._invalid_reply(state, str(exc), exc.usage.total_tokens)
        except LLMError as exc:
            return self._stop(state, "error", f"Stopped: the model call failed: {exc}")
        tokens = state["tokens"] + asked.tokens
        action = asked.action
        if not action.is_finish:
            key = f"{action.signature()}#{state['files_version']}"
            count = seen.get(key, 0) + 1
            if count >= 3:
                forced = self._change_tack(state, action, seen, count)
                if isinstance(forced, str):
                    return self._stop_with_output(state, "loop", forced, tokens=tokens)
                action, tokens = forced.action, tokens + forced.tokens
                key = f"{action.signature()}#{state['files_version']}"
                count = seen.get(key, 0) + 1
            seen[key] = count
            repeat = count == 2
        else:
            repeat = False
        moves = list(state.get("moves") or [])
        if not action.is_finish:
            moves.append(move(action.tool, action.args))
            block = cycle(moves)
            if block is not None:
                broken = self._break_cycle(state, block, seen)
                if isinstance(broken, str):
                    return self._stop_with_output(state, "loop", broken, tokens=tokens)
                action, tokens = broken.action, tokens + broken.tokens
                moves = [] if action.is_finish else [move(action.tool, action.args)]
                seen = {**seen, CYCLE_KEY: seen.get(CYCLE_KEY, 0) + 1}
                repeat = False
        self._progress(state, action)
        update: dict[str, Any] = {
            "tokens": tokens, "seen": seen, "moves": moves, "invalid_replies": 0,
            "pending": {"thought": action.thought, "tool": action.tool, "args": action.args,
                        "repeat": repeat},
        }
        if not action.is_finish:
            update["messages"] = [message("assistant", action.to_json(), "action", turn)]
        return update

    def _change_tack(self, state: AgentState, action: Action, seen: dict[str, int],
                     count: int) -> Asked | str:
        """The third time an action repeats: ask again without that tool. Returns the new
        action, or the explanation to stop with."""
        explanation = (f"Stopped: the model kept repeating the same action ({action.tool} "
                       f"with {action.args}) without making progress.")
        if count > 3:
            return explanation
        nudge = [
            {"role": "assistant", "content": action.to_json()},
            {"role": "user", "content": loop_text("change_tack", tool=action.tool)},
        ]
        try:
            forced = self.asker.ask(state, nudge, exclude=frozenset({action.tool}))
        except LLMError as exc:
            return explanation + f" Asked for a different move, the model failed: {exc}"
        if not forced.action.is_finish:
            key = f"{forced.action.signature()}#{state['files_version']}"
            if seen.get(key, 0) >= 2:
                return explanation
        return forced

    def _break_cycle(self, state: AgentState, block: list[str],
                     seen: dict[str, int]) -> Asked | str:
        """Three rounds of the same moves: ask again, told so, without the tool that would
        start the next round. A second cycle in the same turn stops it."""
        shown = " -> ".join(block)
        explanation = f"Stopped: the model went round the same moves ({shown}) without progress."
        if seen.get(CYCLE_KEY, 0) >= 1:
            return explanation
        nudge = [{"role": "user", "content": loop_text("cycle", moves=shown)}]
        try:
            return self.asker.ask(state, nudge, exclude=frozenset({block[0].split(":", 1)[0]}))
        except LLMError as exc:
            return explanation + f" Asked for a different move, the model failed: {exc}"

    def _invalid_reply(self, state: AgentState, problem: str, spent: int) -> dict[str, Any]:
        invalid = state.get("invalid_replies", 0) + 1
        tokens = state["tokens"] + spent
        if invalid >= MAX_INVALID_REPLIES:
            return self._stop(state, "error",
                              f"Stopped: {invalid} replies in a row were not valid actions "
                              f"(last problem: {problem}).", tokens=tokens)
        if self.bus is not None:  # shown live, and kept in a benchmark's transcript
            self.bus.emit(Progress(done=state["steps"] + 1, total=self.spec.limits.max_steps,
                                   message=f"[{self.spec.name}] invalid reply: {problem[:300]}"))
        note = loop_text(f"invalid_reply_{self.spec.limits.action_mode}", problem=problem)
        return {"invalid_replies": invalid, "steps": state["steps"] + 1, "pending": None,
                "tokens": tokens,
                "messages": [message("user", note, "observation", state["turn"])]}

    def act(self, state: AgentState) -> dict[str, Any]:
        pending, turn = state["pending"], state["turn"]
        if pending is None:  # an invalid reply was answered with a note; think again
            return {}
        if pending["tool"] == FINISH:
            held = self._hold_finish(state)
            if held:
                return held
            args = pending["args"]
            answer = args.get("answer") if isinstance(args.get("answer"), str) else None
            if answer is None:
                answer = json.dumps(args, ensure_ascii=False)
            return {"status": "finished", "answer": answer, "result": args, "pending": None,
                    "messages": [message("assistant", answer, "answer", turn)]}
        update: dict[str, Any] = {"steps": state["steps"] + 1, "pending": None}
        if pending["repeat"]:
            text = loop_text("repeat", tool=pending["tool"])
        else:
            box = self.spec.toolbox
            progress = state.get("progress") or new_progress()
            unread = unread_change(progress, pending["tool"], pending["args"], box.workspace)
            guarded = self._protected_test(state, pending)
            if guarded:
                outcome = ToolOutcome(pending["tool"], False,
                                      loop_text("test_protected", path=guarded), 0.0)
            elif unread:
                outcome = ToolOutcome(pending["tool"], False,
                                      loop_text("read_first", path=unread), 0.0)
                # Not run, so not a repeat when tried again after the read.
                refused = Action("", pending["tool"], pending["args"]).signature()
                update["seen"] = {key: count for key, count in state["seen"].items()
                                  if key != f"{refused}#{state['files_version']}"}
            else:
                outcome = box.run(pending["tool"], pending["args"])
            tool = box.tools.get(pending["tool"])
            mutates = tool is not None and tool.mutates_files
            if outcome.ok and mutates:
                update["files_version"] = state["files_version"] + 1
            done = record(progress, outcome, pending["args"], mutates, box.workspace)
            update["progress"] = done
            note = progress_note(done, box.workspace, read_only=self.read_only,
                                 request=self._request(state))
            # What the model sees of a tool's output never holds a recognised secret.
            text = redact_secrets(outcome.output) + (f"\n\n{note}" if note else "")
        update["messages"] = [message("user", f"Observation ({pending['tool']}):\n{text}",
                                      "observation", turn)]
        return update

    def _hold_finish(self, state: AgentState) -> dict[str, Any]:
        """The first finish of a turn of an agent that changes files, while work looks
        left undone: not accepted; the model is told what looks left (once a turn, so a
        model that knows better can still finish)."""
        progress = state.get("progress") or new_progress()
        if self.read_only or progress.get("finish_checked"):
            return {}
        problem = unfinished_work(progress, self._request(state), state["pending"]["args"])
        if not problem:
            return {}
        turn, pending = state["turn"], state["pending"]
        tried = Action(pending["thought"], FINISH, pending["args"]).to_json()
        return {"steps": state["steps"] + 1, "pending": None,
                "progress": {**progress, "finish_checked": True},
                "messages": [message("assistant", tried, "action", turn),
                             message("user", loop_text("finish_held", problem=problem),
                                     "observation", turn)]}

    def _protected_test(self, state: AgentState, pending: dict[str, Any]) -> str:
        """The test file a file-changing action targets while the request asks to fix code
        (the tests are then the specification); "" when the action may run."""
        tool = self.spec.toolbox.tools.get(pending["tool"])
        path = pending["args"].get("path")
        if tool is None or not tool.mutates_files or not isinstance(path, str):
            return ""
        if is_test_path(path) and protects_tests(self._request(state)):
            return path
        return ""

    @staticmethod
    def _request(state: AgentState) -> str:
        return next((m["content"] for m in state["messages"]
                     if m["turn"] == state["turn"] and m["kind"] == "request"), "")

    def wrap_up(self, state: AgentState) -> dict[str, Any]:
        return self.on_turn_end(dict(state)) if self.on_turn_end else {}

    # ------------------------------------------------------------------ helpers
    def _stop(self, state: AgentState, status: str, explanation: str,
              tokens: int | None = None) -> dict[str, Any]:
        if self.bus is not None:
            self.bus.emit(Progress(done=state["steps"], total=self.spec.limits.max_steps,
                                   message=explanation))
        return {"status": status, "answer": explanation, "pending": None,
                "tokens": state["tokens"] if tokens is None else tokens,
                "messages": [message("assistant", explanation, "answer", state["turn"])]}

    def _stop_with_output(self, state: AgentState, status: str, explanation: str,
                          tokens: int | None = None) -> dict[str, Any]:
        """Stop, but first ask for the finish output (one call, only finish allowed): the
        user gets the agent's own account, and a phase agent (planner, implementer) gives
        its plan or report all the same. The status still says why the turn stopped."""
        tokens = state["tokens"] if tokens is None else tokens
        try:
            asked = self.asker.ask_finish(state, loop_text("must_finish", reason=explanation))
        except LLMError:
            return self._stop(state, status, explanation, tokens=tokens)
        args = asked.action.args
        own = args.get("answer") if isinstance(args.get("answer"), str) else None
        answer = f"{explanation}\n{own}" if own else explanation
        update = self._stop(state, status, answer, tokens=tokens + asked.tokens)
        update["result"] = args
        return update

    def _progress(self, state: AgentState, action: Action) -> None:
        if self.bus is not None and action.thought:
            self.bus.emit(Progress(done=state["steps"] + 1, total=self.spec.limits.max_steps,
                                   message=f"[{self.spec.name}] {action.thought}"))


def _after_think(state: AgentState) -> Literal["act", "wrap_up"]:
    return "act" if state["status"] == "running" else "wrap_up"


def _think_again(state: AgentState) -> Literal["think", "wrap_up"]:
    """After the opening and after each act: another turn while the run is running."""
    return "think" if state["status"] == "running" else "wrap_up"


def build_react_graph(llm: LLM, spec: AgentSpec, *, bus: EventBus | None = None,
                      checkpointer: Any = None,
                      on_turn_end: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                      opening: Callable[[AgentState], dict[str, Any]] | None = None):
    """Compile the loop. `on_turn_end(state) -> update` runs once when a turn ends (the
    session records changed files there); `opening(state) -> update` runs first in each turn
    and may finish it."""
    loop = _Loop(llm, spec, bus, on_turn_end)
    graph = StateGraph(AgentState)
    graph.add_node("think", loop.think)
    graph.add_node("act", loop.act)
    graph.add_node("wrap_up", loop.wrap_up)
    if opening is not None:
        graph.add_node("opening", opening)
        graph.add_edge(START, "opening")
        graph.add_conditional_edges("opening", _think_again)
    else:
        graph.add_edge(START, "think")
    graph.add_conditional_edges("think", _after_think)
    graph.add_conditional_edges("act", _think_again)
    graph.add_edge("wrap_up", END)
    return graph.compile(checkpointer=checkpointer)


def recursion_limit(limits: AgentLimits) -> int:
    """LangGraph counts node runs; each step is think + act, plus margin for notes."""
    return 4 * limits.max_steps + 10
