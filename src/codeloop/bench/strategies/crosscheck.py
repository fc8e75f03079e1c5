"""The solve pipeline with the cross-check of untested code (`codeloop solve --crosscheck`):
for a problem with no example, the refinement rounds buy samples that run with the draft on
calls the model proposes, and the majority behaviour wins. Kept to measure it against the
default, which does not cross-check."""

from __future__ import annotations

from codeloop.bench.strategies.pipeline import Pipeline


class CrossCheck(Pipeline):
    name = "crosscheck"
    description = ("the solve pipeline, cross-checking code that no example tests with "
                   "samples run on model-proposed calls")
    crosscheck = True


STRATEGY = CrossCheck
