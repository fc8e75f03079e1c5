"""The `solve` pipeline (analysis, planning, generation, review, refinement) on a Task
built from the public problem only."""

from __future__ import annotations

from codeloop.bench.datasets import PublicProblem
from codeloop.bench.program import build_program
from codeloop.bench.strategies.base import Attempt
from codeloop.bench.task_builder import task_for
from codeloop.events import EventBus, EventRecorder
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLM
from codeloop.solve.extract import join_program
from codeloop.solve.rounds import SAMPLES_PER_ROUND
from codeloop.solve.runner import SolveResult, solve_task
from codeloop.solve.tasks import Task


class Pipeline:
    name = "pipeline"
    description = ("codeloop's solve pipeline: a draft; analysis, planning, generation and "
                   "up to N refinement rounds when review finds it wrong")
    draft_first = True
    crosscheck = False

    def __init__(self, max_refinements: int = 3,
                 samples_per_round: int = SAMPLES_PER_ROUND, seed: int | None = None,
                 edge_checks: bool = True, vote: bool = False) -> None:
        self.max_refinements = max_refinements
        self.edge_checks = edge_checks
        self.vote = vote
        self.samples_per_round = samples_per_round
        self.seed = seed

    def solve(self, problem: PublicProblem, llm: LLM) -> Attempt:
        bus = EventBus()
        recorder = EventRecorder()
        bus.subscribe(recorder)
        task = task_for(problem)
        result = solve_task(task, llm, bus=bus,
                            max_refinements=self.max_refinements,
                            draft_first=self.draft_first, crosscheck=self.crosscheck,
                            samples_per_round=self.samples_per_round, seed=self.seed,
                            edge_checks=self.edge_checks, vote=self.vote)
        # Scored like oneshot's reply: the same extraction and preamble rules.
        program = build_program(problem, f"```python\n{result.code}\n```") if result.code \
            else None
        # Stage seconds hold review's sandbox runs too; the total's are model time only.
        usage = UsageRecord(result.totals.calls, result.totals.prompt_tokens,
                            result.totals.completion_tokens, _llm_seconds(recorder))
        attempt = Attempt(program=program.code if program else "", reply=result.code or "",
                          note=program.note if program else "the pipeline produced no code",
                          usage=usage, stages=dict(result.stages))
        attempt.extra = {"verdict": result.verdict, "self_check_passed": result.passed,
                         "refinements": result.refinement_count,
                         "attempts": [_attempt_record(a) for a in result.attempts]}
        attempt.draft_program, attempt.draft_tokens = _draft(problem, task, result, recorder)
        return attempt


def _draft(problem: PublicProblem, task: Task, result: SolveResult,
           recorder: EventRecorder) -> tuple[str, int]:
    """The draft's program, built like the final one, and its call's tokens."""
    draft = next((a for a in result.attempts if a["strategy"] == "draft"), None)
    if draft is None or not draft["code"]:
        return "", 0
    program = build_program(problem, f"```python\n{join_program(task.context, draft['code'])}\n```")
    call = recorder.of_type("llm_call")[0]
    return program.code, call.prompt_tokens + call.completion_tokens


def _attempt_record(candidate: dict) -> dict:
    """One candidate as the results keep it: what it cost and what review saw, so stopping
    and selection rules can be measured on a run's records afterwards."""
    return {"round": candidate["round"], "strategy": candidate["strategy"],
            "passed": candidate["passed"], "total": candidate["total"],
            "accepted": candidate["accepted"], "tokens": candidate.get("tokens", 0),
            "feedback": (candidate["feedback"] or "")[:300], "code": candidate["code"]}


def _llm_seconds(recorder: EventRecorder) -> float:
    """Time in model calls (stage seconds also hold the sandbox runs of review)."""
    return sum(e.seconds for e in recorder.of_type("llm_call"))


STRATEGY = Pipeline
