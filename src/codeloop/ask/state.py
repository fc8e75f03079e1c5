"""The ask job's state: a TypedDict with every field set by `create_initial_state`.

Nodes return only the keys they change; list fields that grow (reasoning steps, reflection
notes, tool usage, files read, usage) grow through their `operator.add` reducers. Everything
is plain JSON data, so the checkpointer and the run store keep it as is.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

TaskType = Literal["analyze_repo", "answer_question", "generate_content", "general"]
TASK_TYPES: tuple[TaskType, ...] = ("analyze_repo", "answer_question", "generate_content",
                                    "general")
# What the planner can schedule next; the reflector's decisions.
NextAction = Literal["analyze_repository", "retrieve", "read_files", "reason", "generate"]
Decision = Literal["generate", "continue", "retry"]
DEFAULT_MAX_ITERATIONS = 10


class ToolUse(TypedDict):
    tool: str
    arguments: dict[str, Any]
    ok: bool
    result_size: int  # characters of the result as JSON (what a prompt would carry)
    summary: str
    seconds: float


class ReflectionNote(TypedDict):
    iteration: int
    decision: Decision
    reason: str


class AskState(TypedDict):
    # inputs
    task: str
    task_type: TaskType
    task_type_source: str  # "rules", "model", "user" (--type) or "default"
    repo: str | None  # absolute path of the repository, or None (no repository tools)
    retrieval: bool  # False: questions get the central files instead of BM25 chunks
    max_iterations: int
    # the loop
    iteration_count: int
    next_action: NextAction
    reasoning_steps: Annotated[list[str], operator.add]
    reasoning_fallback: bool  # the last reasoner call fell back to simple steps
    retries: int
    reflection_notes: Annotated[list[ReflectionNote], operator.add]
    # the repository
    tool_usage: Annotated[list[ToolUse], operator.add]
    repo_structure: dict[str, Any]
    dependencies: dict[str, Any]
    architecture: dict[str, Any]
    code_files: Annotated[list[dict[str, Any]], operator.add]
    retrieved: list[dict[str, Any]]  # chunks {path, start, end, name, kind, text, score}
    observation: dict[str, Any]  # the question's call run in the sandbox (calls.py), or {}
    facts: list[str]  # structure facts from the tools, each with its path:line (facts.py)
    # the answer
    final_output: str
    output_source: Literal["", "model", "template"]  # template: the no-model report
    is_complete: bool
    evaluation_scores: dict[str, Any]
    grounding: dict[str, Any]
    usage: Annotated[list[dict[str, Any]], operator.add]  # jobs.usage.stage_entry per node


def create_initial_state(task: str, task_type: TaskType, *, repo: str | None = None,
                         task_type_source: str = "rules", retrieval: bool = True,
                         max_iterations: int = DEFAULT_MAX_ITERATIONS) -> AskState:
    return AskState(
        task=task,
        task_type=task_type,
        task_type_source=task_type_source,
        repo=repo,
        retrieval=retrieval,
        max_iterations=max_iterations,
        iteration_count=0,
        next_action="reason",
        reasoning_steps=[],
        reasoning_fallback=False,
        retries=0,
        reflection_notes=[],
        tool_usage=[],
        repo_structure={},
        dependencies={},
        architecture={},
        code_files=[],
        retrieved=[],
        observation={},
        facts=[],
        final_output="",
        output_source="",
        is_complete=False,
        evaluation_scores={},
        grounding={},
        usage=[],
    )


def latest_steps(steps: list[str]) -> list[str]:
    """The reasoner's last set of steps (each set starts at "Step 1:")."""
    numbered = [s for s in steps if s.startswith("Step ")]
    starts = [i for i, s in enumerate(numbered) if s.startswith("Step 1:")]
    return numbered[starts[-1]:] if starts else numbered
