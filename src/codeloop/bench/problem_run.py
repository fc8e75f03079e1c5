"""Solve and score one problem: the strategy sees the public problem only, the sandbox
scores its program on the hidden tests. Shared by the driver (runner.py, in threads) and
by a unit run anywhere (unit.py, on Ray)."""

from __future__ import annotations

import time
from dataclasses import replace

from codeloop.bench.datasets import Problem
from codeloop.bench.records import ProblemRecord
from codeloop.bench.scoring import Score, score
from codeloop.bench.strategies.base import Attempt, Strategy
from codeloop.llm.base import (
    LLM,
    BackendTimeout,
    BackendUnreachable,
    LLMError,
    ModelNotAvailable,
    ModelUnreachable,
    ScriptExhausted,
    UnknownModelSpec,
    forget_prompt_cache,
)

# Errors that say the model or the sandbox is not there at all: scoring them as a failed
# problem would turn an outage into a low score, so the run stops (and --resume goes on).
ABORTING_ERRORS: tuple[type[Exception], ...] = (
    BackendUnreachable, BackendTimeout, ModelNotAvailable, UnknownModelSpec, ScriptExhausted,
    ModelUnreachable,
)


def _sandbox_errors() -> tuple[type[Exception], ...]:
    from codeloop.sandbox.types import SandboxUnavailable

    return (SandboxUnavailable,)


def _attempt(strategy: Strategy, problem: Problem, llm: LLM) -> tuple[Attempt, str, str, float]:
    """(attempt, outcome if the strategy failed, its reason, seconds)."""
    started = time.perf_counter()
    try:
        forget_prompt_cache(llm)  # a problem's replies do not depend on the problems before it
        attempt = strategy.solve(problem.public(), llm)
        failure, reason = "", ""
    except ABORTING_ERRORS + _sandbox_errors():
        raise
    except LLMError as exc:
        attempt, failure, reason = Attempt(program=""), "llm_error", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - one problem's crash is recorded, the run goes on
        attempt, failure = Attempt(program=""), "strategy_error"
        reason = f"{type(exc).__name__}: {exc}"
    return attempt, failure, reason, time.perf_counter() - started


def run_problem(strategy: Strategy, problem: Problem, llm: LLM, *, timeout: float
                ) -> ProblemRecord:
    attempt, failure, reason, seconds = _attempt(strategy, problem, llm)
    if failure:
        result = Score(False, failure, reason[:300], 0.0)  # type: ignore[arg-type]
    elif not attempt.program.strip():
        result = Score(False, "no_code", attempt.note or "no code", 0.0)
    else:
        result = score(problem, attempt.program, timeout=timeout)
    extra = dict(attempt.extra)
    if attempt.draft_program:
        # Scored after the strategy has finished: nothing of it reaches the strategy.
        draft = result if attempt.draft_program == attempt.program else score(
            problem, attempt.draft_program, timeout=timeout)
        extra["draft"] = {"passed": draft.passed, "tokens": attempt.draft_tokens}
    return ProblemRecord(
        task_id=problem.task_id, passed=result.passed, outcome=result.outcome,
        reason=result.reason, program=attempt.program, reply=attempt.reply, note=attempt.note,
        calls=attempt.usage.calls, prompt_tokens=attempt.usage.prompt_tokens,
        completion_tokens=attempt.usage.completion_tokens,
        llm_seconds=round(attempt.usage.seconds, 3),
        seconds=round(seconds, 3), score_seconds=round(result.seconds, 3),
        stages={k: replace(v) for k, v in attempt.stages.items()},  # copies
        extra=extra,
    )
