"""The ask job's Python entry point: `ask(question, repo, llm, store, settings, ...)`.

Used by `codeloop ask` (one question or the REPL), the HTTP server and the benchmark. Bad
input (an empty question, a repository that does not exist, is not a directory or holds no
readable text, an unknown type) raises AskError before anything is recorded. With a store,
the run is recorded (`store.run("ask", ...)`, the state checkpointed after every node);
without one, it runs on a private event bus. `llm=None` runs without a model: repository
analysis gives the template report, other types stop with AskError.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from codeloop.ask.context import AskContext, AskError
from codeloop.ask.state import DEFAULT_MAX_ITERATIONS, TASK_TYPES, AskState, create_initial_state
from codeloop.ask.task_type import by_rules, default_type
from codeloop.ask.tools.walk import RepoError, RepoIndex
from codeloop.events import Error, EventBus, Listener
from codeloop.jobs.usage import UsageRecord, per_stage
from codeloop.llm.base import LLM, LLMError

MAX_QUESTION_CHARS = 4000


class AskResult(BaseModel):
    run_id: str | None
    task: str
    task_type: str
    task_type_source: str
    repo: str | None
    model: str
    final_output: str
    output_source: str  # "model" or "template" (the no-model report)
    is_complete: bool
    iteration_count: int
    reasoning_steps: list[str]
    reflection_notes: list[dict[str, Any]]
    tool_usage: list[dict[str, Any]]
    retrieved: list[dict[str, Any]]  # {path, start, end, name, score}: the text is not kept
    observation: dict[str, Any] = {}  # the question's call as run in the sandbox, or {}
    facts: list[str] = []  # the structure facts the tools gave the answer
    evaluation_scores: dict[str, Any]
    grounding: dict[str, Any]
    stages: dict[str, UsageRecord]
    totals: UsageRecord
    seconds: float


def prepare(question: str, repo: str | Path | None, task_type: str | None,
            index: RepoIndex | None = None) -> tuple[str, RepoIndex | None, str | None]:
    """The checked question, the repository's index (`index` when given: a REPL reads the
    repository once) and the user's type; AskError for bad input (one line, nothing
    recorded)."""
    question = (question or "").strip()
    if not question:
        raise AskError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise AskError(f"the question is {len(question)} characters; at most "
                       f"{MAX_QUESTION_CHARS}")
    if task_type is not None and task_type not in TASK_TYPES:
        raise AskError(f"unknown task type {task_type!r}; use one of {', '.join(TASK_TYPES)}")
    if repo is not None and index is None:
        try:
            index = RepoIndex.open(repo)
        except RepoError as exc:
            raise AskError(str(exc)) from None
    if index is not None and not index.files:
        skipped = ", ".join(f"{v} {k}" for k, v in sorted(index.skipped.items()))
        raise AskError(f"the repository {repo} has no readable text files"
                       f"{f' ({skipped})' if skipped else ''}")
    if task_type in ("analyze_repo", "answer_question") and index is None:
        raise AskError(f"--type {task_type} needs a repository (--repo PATH)")
    return question, index, task_type


def ask(question: str, repo: str | Path | None, llm: LLM | None, store: Any = None,
        settings: Any = None, task_type: str | None = None, retrieval: bool = True,
        listen: Listener | None = None, *, max_iterations: int = DEFAULT_MAX_ITERATIONS,
        stream: bool = False, index: RepoIndex | None = None,
        on_run_id: Callable[[str], None] | None = None, run_calls: bool = True) -> AskResult:
    """Run the six nodes on `question` (about `repo`, if given). `settings` (config.Settings)
    caps every reply at its `max_tokens`; `listen` gets every event as it happens;
    `on_run_id` the run's id as soon as it exists (an interruption can then name it);
    `run_calls=False` never runs the question's call in the sandbox (calls.py)."""
    question, index, chosen = prepare(question, repo, task_type, index)
    if max_iterations < 1:
        raise AskError("max_iterations must be 1 or more")
    has_repo = index is not None
    if chosen is not None:
        kind, source = chosen, "user"
    else:
        ruled = by_rules(question, has_repo)
        kind, source = (ruled, "rules") if ruled else (
            (default_type(has_repo), "pending") if llm is not None
            else (default_type(has_repo), "default"))
    if llm is None and kind != "analyze_repo":
        raise AskError(f"a {kind} task needs a model; without one only repository analysis "
                       "works (--type analyze_repo)")
    state = create_initial_state(question, kind, repo=str(index.root) if index else None,
                                 task_type_source=source, retrieval=retrieval,
                                 max_iterations=max_iterations)
    inputs = {"task": question, "repo": state["repo"], "task_type": kind,
              "task_type_source": source, "retrieval": retrieval,
              "model": getattr(llm, "name", None)}
    cap = getattr(settings, "max_tokens", None)
    if store is None:
        bus = EventBus()
        if listen is not None:
            bus.subscribe(listen)
        return _run(state, llm, index, bus, None, None, cap, stream, run_calls)
    with store.run("ask", inputs) as run:
        if on_run_id is not None:
            on_run_id(run.id)
        if listen is not None:
            run.bus.subscribe(listen)
        result = _run(state, llm, index, run.bus, store.checkpointer(), run.id, cap, stream,
                      run_calls)
        run.finish("completed", result.model_dump())
    return result


def _run(state: AskState, llm: LLM | None, index: RepoIndex | None, bus: EventBus,
         checkpointer: Any, run_id: str | None, cap: int | None, stream: bool,
         run_calls: bool = True) -> AskResult:
    from codeloop.ask.graph import build_graph, recursion_limit

    ctx = AskContext(llm=llm, task=state["task"], bus=bus, index=index, stream=stream,
                     max_tokens_cap=cap, run_calls=run_calls)
    graph = build_graph(ctx, checkpointer=checkpointer)
    config: dict[str, Any] = {"recursion_limit": recursion_limit(state["max_iterations"])}
    if checkpointer is not None:
        config["configurable"] = {"thread_id": run_id}
    started = time.perf_counter()
    try:
        final = graph.invoke(state, config=config)
    except (AskError, LLMError) as exc:
        bus.emit(Error(message=str(exc), where="ask"))
        raise
    return result_from_state(final, run_id, getattr(llm, "name", "none"),
                             time.perf_counter() - started)


def result_from_state(state: AskState, run_id: str | None, model: str,
                      seconds: float) -> AskResult:
    stages, totals = per_stage(state["usage"])
    return AskResult(
        run_id=run_id, task=state["task"], task_type=state["task_type"],
        task_type_source=state["task_type_source"], repo=state["repo"], model=model,
        final_output=state["final_output"], output_source=state["output_source"],
        is_complete=state["is_complete"], iteration_count=state["iteration_count"],
        reasoning_steps=state["reasoning_steps"],
        reflection_notes=[dict(n) for n in state["reflection_notes"]],
        tool_usage=[dict(u) for u in state["tool_usage"]],
        retrieved=[{k: v for k, v in c.items() if k != "text"} for c in state["retrieved"]],
        observation=state.get("observation") or {}, facts=state.get("facts") or [],
        evaluation_scores=state["evaluation_scores"], grounding=state["grounding"],
        stages=stages, totals=totals, seconds=round(seconds, 3))
