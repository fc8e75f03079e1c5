"""planner: counts the iteration, settles the task type if the rules could not, and picks the
next action for the task type:

- analyze_repo (and generate_content with a repository): run the four tools first;
- answer_question: retrieve the code the question is about first;
- after the reflector said `continue`: read the files the reasoning named;
- otherwise (and after `retry`): reason.

Each call adds the reasoning step "Planning: task type is X, next action is Y".
"""

from __future__ import annotations

from codeloop.ask.context import AskContext, ask_or_none, prompt
from codeloop.ask.state import AskState, NextAction, TaskType
from codeloop.ask.task_type import SCHEMA, default_type
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import InvalidStructuredOutput


def plan(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    update: dict = {"iteration_count": state["iteration_count"] + 1}
    task_type = state["task_type"]
    if state["task_type_source"] == "pending":
        task_type, source = _model_type(state, ctx, usage)
        update.update(task_type=task_type, task_type_source=source)
        ctx.debug("planner", "thinking", f"task type {task_type} (by {source})", usage=usage)
    action = next_action({**state, **update})
    update["next_action"] = action
    step = f"Planning: task type is {task_type}, next action is {action}"
    update["reasoning_steps"] = [step]
    return StageOutput(update, f"{step} (iteration {update['iteration_count']})")


def next_action(state: AskState) -> NextAction:
    has_repo = state["repo"] is not None
    last = state["reflection_notes"][-1]["decision"] if state["reflection_notes"] else None
    if last == "continue" and has_repo:
        return "read_files"
    if last == "retry":
        return "reason"
    if has_repo and not state["tool_usage"]:
        if state["task_type"] in ("analyze_repo", "generate_content"):
            return "analyze_repository"
        if state["task_type"] == "answer_question":
            return "retrieve"
    return "reason"


def _model_type(state: AskState, ctx: AskContext, usage: UsageRecord) -> tuple[TaskType, str]:
    has_repo = state["repo"] is not None
    try:
        reply = ask_or_none(ctx, usage, "planner", prompt("task_type"), schema=SCHEMA,
                            task=state["task"], has_repo=has_repo)
    except InvalidStructuredOutput as exc:
        usage.prompt_tokens += exc.usage.prompt_tokens
        usage.completion_tokens += exc.usage.completion_tokens
        reply = None
    if reply is None:
        return default_type(has_repo), "default"
    chosen = reply.data["task_type"]
    if chosen in ("analyze_repo", "answer_question") and not has_repo:
        return "general", "model (no repository: general)"
    return chosen, "model"
