"""A reviewer's objection to a change, checked by running it.

Measured on the 1.5B (benchmarks/review_bench.py, mutable_default at 4fcb886): asked to fix
add_item's shared default cart, the refiner wrote the right fix (`cart=None`) with every
check passing, and the reviewer model said no in both later reviews: "add_item does not
return the updated cart when called without a cart argument". It does; the refiner had
nothing to act on and the rounds ran out. off_by_one's right fix got the same kind of "no"
and passed only because its request test verified it.

So when the model's "no" is the only thing holding back a change that passes every check,
the model is asked once for tests of what the objections say the code does wrong, written
through the kit's edit engine like the request test (request_test.py) and run in the
sandbox on the code as changed:
- a test function that fails there the way a missing behaviour fails (an assertion, a
  `pytest.raises` that did not raise, in the test) shows the objection: its failure goes to
  the refiner as the concrete problem;
- when the tests ran and none shows it, the objection is not shown: the change goes to the
  person with the objections and what ran beside the diff (a test that passes, or one wrong
  itself, a name never imported or an exception the request never asks for, shows
  nothing). The model's "no" is a hypothesis; the sandbox is the judge, as it is for the
  request test, and a person still approves. On mutable_default the 1.5B's tests were a copy
  of the workspace's test, which passed, and `pytest.raises(ValueError)` for a call without
  a cart, which the request never asks for;
- when no test ran (no file came back, or it does not run), nothing was checked, and the
  objection goes to the refiner as before.
The test is never part of the change a person approves."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codeloop.jobs.edit_engine import EditTask, run_edit
from codeloop.jobs.prompts import prompt_file, render
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext
from codeloop.review.debug import DebugTrail
from codeloop.review.request_test import RequestTestSite, failure_texts, target_files, test_path
from codeloop.review.state import ReviewState

FILE_NAME = "test_codeloop_objection.py"
MAX_OBJECTIONS = 4


@dataclass
class ObjectionCheck:
    """What running the objections' tests on the changed code said."""

    shown: dict[str, list[str]] = field(default_factory=dict)  # test -> its failure (E lines)
    passed: list[str] = field(default_factory=list)  # test functions that pass on the change
    wrong: dict[str, str] = field(default_factory=dict)  # test functions wrong themselves

    @property
    def unfounded(self) -> bool:
        """The tests ran and none shows the objections."""
        return not self.shown

    def remark(self) -> str:
        """For the person, beside the diff: what ran and why it shows nothing."""
        parts = [f"passed: {', '.join(self.passed)}"] if self.passed else []
        parts += [f"{name} wrong itself ({why})" for name, why in self.wrong.items()]
        return ("the reviewer's objections were run as tests on the change and none failed "
                f"as a missing behaviour does ({'; '.join(parts) or 'no test function'})")


def check_objections(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
                     trail: DebugTrail, objections: list[str],
                     spec: dict[str, str]) -> ObjectionCheck | None:
    """Tests of `objections` run on the code under review as changed (`state["artifacts"]`),
    or None when none ran (no file came back, or it does not run). `spec`: the workspace
    tests that import the code."""
    targets = target_files(state)
    if not targets or not objections:
        return None
    code = {a["file_path"]: a["content"] for a in state["artifacts"]
            if a["file_path"] in targets}
    path = test_path(state, spec, FILE_NAME)
    site = RequestTestSite(state, ctx, trail, path, code, spec)
    request = render(prompt_file("codeloop.review", "engine")["objection_test"],
                     request=state["request"], objections=objections[:MAX_OBJECTIONS],
                     test_path=path, code=list(code))
    task = EditTask(request=request, files={**code, **spec}, edit=[], new=[path],
                    spec=[*code, *spec], protect_tests=False)
    run_edit(ctx.llm, task, site, rounds=1, bus=ctx.bus, stage="reviewer", usage=usage,
             say=lambda text: trail.log("thinking", text))
    verdicts = site.verdicts
    if site.text is None or verdicts is None or verdicts.broken:
        trail.log("thinking", "the objections could not be checked: no test of them ran")
        return None
    shown = {name: texts for name, texts in failure_texts(site.stdout, path).items()
             if name in verdicts.reproduced}
    passed = [name for name in _test_names(site.text)
              if name not in verdicts.reproduced and name not in verdicts.mistaken]
    checked = ObjectionCheck(shown=shown, passed=passed if verdicts.passed else [],
                             wrong={} if shown else dict(verdicts.mistaken))
    trail.log("tool_call", f"the objections as tests on the changed code: {len(shown)} show "
                           f"them, {verdicts.passed} pass, {len(verdicts.mistaken)} wrong "
                           "themselves", {"shown": shown, "wrong": verdicts.mistaken})
    trail.log("result", site.text, {"prompt": "objection_test", "path": path})
    return checked


def _test_names(text: str) -> list[str]:
    return re.findall(r"^(?:async )?def (test\w*)", text, re.MULTILINE)
