"""The plain Python entry point: `solve_task(task, llm) -> SolveResult`.

Used by `codeloop solve`, the benchmark runner and the API. Model errors (an unreachable
backend, an exhausted script) propagate as `LLMError` after an Error event; a bad test file
raises `TestFileError` before any model call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from codeloop.docstring_examples.parse import task_assertions
from codeloop.events import Error, EventBus
from codeloop.jobs.usage import UsageRecord, per_stage
from codeloop.llm.base import LLM, LLMError, forget_prompt_cache
from codeloop.solve.edges import edge_calls
from codeloop.solve.execute import narrow_test_source, read_test_file
from codeloop.solve.extract import join_program
from codeloop.solve.rounds import EDGE_ROUNDS, SAMPLES_PER_ROUND, STUCK_LAST_ROUND_SAMPLES
from codeloop.solve.stage import SolveContext
from codeloop.solve.state import CORRECT, UNTESTED, SolveState, initial_state
from codeloop.solve.tasks import Task
from codeloop.solve.vote import vote_calls


class SolveResult(BaseModel):
    task_id: str
    model: str
    code: str  # the full program: the task's context, then the solution
    function_code: str  # the solution alone (function and helpers)
    verdict: str
    passed: bool  # the code passed its tests: never when no test ran
    untested_reason: str = ""  # why no test ran (the verdict is then "Code is untested")
    exec_result: dict[str, Any]
    quality_metrics: dict[str, Any]
    review: dict[str, Any]
    refinement_count: int
    analysis: str
    plan: str
    attempts: list[dict[str, Any]]
    stages: dict[str, UsageRecord]  # seconds: each stage's wall clock, not only the model's
    totals: UsageRecord

    @property
    def run_status(self) -> str:
        """The run store's status for this result (run_statuses.JOB_STATUSES["solve"])."""
        if self.passed:
            return "passed"
        return "untested" if self.verdict == UNTESTED else "failed"


def result_from_state(state: SolveState, task: Task) -> SolveResult:
    stages, totals = per_stage(state["usage"])
    code = state["code"]
    return SolveResult(
        task_id=state["task_id"],
        model=state["model"],
        code=join_program(task.context, code) if code else "",
        function_code=code,
        verdict=state["review"]["verdict"],
        passed=state["review"]["verdict"] == CORRECT,
        untested_reason=state["review"].get("untested", "") if
        state["review"]["verdict"] == UNTESTED else "",
        exec_result=dict(state["exec_result"]),
        quality_metrics=state["quality_metrics"],
        review=dict(state["review"]),
        refinement_count=state["refinement_count"],
        analysis=state["analysis"],
        plan=state["plan"],
        attempts=[dict(a) for a in state["attempts"]],
        stages=stages,
        totals=totals,
    )


def solve_task(
    task: Task,
    llm: LLM,
    *,
    bus: EventBus | None = None,
    test_file: Path | None = None,
    max_refinements: int = 3,
    show_node_info: bool = False,
    stream: bool = False,
    sandbox_timeout: float = 10.0,
    unsafe_no_sandbox: bool = False,
    checkpointer: Any = None,
    thread_id: str | None = None,
    plan_in_generation: bool = True,
    draft_first: bool = True,
    crosscheck: bool = False,
    samples_per_round: int = SAMPLES_PER_ROUND,
    seed: int | None = None,
    edge_checks: bool = True,
    vote: bool = False,
) -> SolveResult:
    """Run the five stages on `task`. `stream` emits Token events while the model writes;
    `checkpointer` (e.g. RunStore.checkpointer()) persists the state after every stage;
    `draft_first=False` runs analysis and planning before any code, even when a draft from
    the task alone would have passed review (see graph.py);
    `plan_in_generation=False` gives generation the plain one-shot prompt (the plan then
    is kept for the record: a switch for benchmarks to compare);
    `crosscheck=True`: code that no test checks (a task without examples or test file) is
    compared with independent samples on calls the model proposes (solve/crosscheck.py);
    `samples_per_round`: a round's samples at most, the second one only within the task's
    token budget (solve/rounds.py); `seed`: the sampled calls draw the same replies on every
    run of the task with this seed (None: fresh ones; greedy calls are the same anyway);
    `edge_checks`: code that passes every test also runs on the examples' calls with an
    argument made empty or cut to one item, and a crash there gets a round
    (solve/edges.py); `vote`: code that passes every test only after a failed draft meets
    an independent sample on edge calls, and two samples that agree against it replace it
    (solve/vote.py)."""
    from codeloop.solve.graph import build_graph

    if max_refinements < 0:
        raise ValueError("max_refinements must be 0 or more")
    if samples_per_round < 1:
        raise ValueError("samples_per_round must be 1 or more")
    test_source = None
    if test_file is not None:
        test_source, _count = narrow_test_source(read_test_file(Path(test_file)), task.task_id)
    bus = bus or EventBus()
    assertions = task_assertions(task.examples, task.docstring, task.entry_point, task.context,
                                 params=[a.arg for a in task.signature_node().args.args])
    ctx = SolveContext(
        llm=llm, task=task, bus=bus, test_source=test_source, stream=stream,
        assertions=assertions,
        edge_calls=edge_calls(assertions, task.entry_point) if edge_checks else [],
        vote_calls=vote_calls(assertions, task.entry_point) if vote else [],
        sandbox_timeout=sandbox_timeout, unsafe_no_sandbox=unsafe_no_sandbox,
        plan_in_generation=plan_in_generation,
        draft_first=draft_first,
        crosscheck=crosscheck,
        samples_per_round=samples_per_round,
        seed=seed,
    )
    graph = build_graph(ctx, checkpointer=checkpointer)
    config: dict[str, Any] = {"recursion_limit": 16 + 2 * max_refinements * samples_per_round
                              + 2 * (EDGE_ROUNDS + STUCK_LAST_ROUND_SAMPLES) + 1}
    if checkpointer is not None:
        config["configurable"] = {"thread_id": thread_id or bus.run_id or task.task_id}
    state = initial_state(task, model=getattr(llm, "name", "?"), show_node_info=show_node_info,
                          max_refinements=max_refinements)
    try:
        forget_prompt_cache(llm)  # the same task, the same replies, whatever ran before it
        final = graph.invoke(state, config=config)
    except LLMError as exc:
        bus.emit(Error(message=str(exc), where="solve"))
        raise
    return result_from_state(final, task)
