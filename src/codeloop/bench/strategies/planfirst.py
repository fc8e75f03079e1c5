"""The solve pipeline in the classic order for every problem: analysis, planning,
generation, review, refinement (`codeloop solve --plan-first`). Kept to measure what the
draft-first default saves and costs."""

from __future__ import annotations

from codeloop.bench.strategies.pipeline import Pipeline


class PlanFirst(Pipeline):
    name = "planfirst"
    description = "the solve pipeline with analysis and planning before any code, always"
    draft_first = False


STRATEGY = PlanFirst
