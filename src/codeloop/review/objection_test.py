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
- when a test function written passes and none shows it, nothing shows the objection: the
  change goes to the person with the objections and the tests beside it (a test that is
  wrong itself, a name never imported or an exception the request never asks for, says
  nothing either way and is not counted);
- anything else (no test, only tests that are wrong themselves, a file that does not run)
  says nothing sure, and the objection goes to the refiner as before.
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
    content: str = ""  # the test file as written

    @property
    def unfounded(self) -> bool:
        """A test of them ran and passed, and none shows them."""
        return bool(self.passed) and not self.shown


def check_objections(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
                     trail: DebugTrail, objections: list[str],
                     spec: dict[str, str]) -> ObjectionCheck | None:
    """Tests of `objections` run on the code under review as changed (`state["artifacts"]`),
    or None when they say nothing sure. `spec`: the workspace tests that import the code."""
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
    if verdicts.mistaken and not shown:
        # a test wrong itself says nothing either way (on the 1.5B: a ValueError the request
        # never asks for, beside a test of the objection that passed); the rest still count
        trail.log("thinking", "a test of the objections is wrong itself and says nothing: "
                              f"{'; '.join(verdicts.mistaken.values())}")
    checked = ObjectionCheck(shown=shown, passed=passed if verdicts.passed else [],
                             content=site.text)
    trail.log("tool_call", f"the objections as tests on the changed code: {len(shown)} show "
                           f"them, {verdicts.passed} pass", {"shown": shown})
    trail.log("result", site.text, {"prompt": "objection_test", "path": path})
    return checked if checked.shown or checked.unfounded else None


def _test_names(text: str) -> list[str]:
    return re.findall(r"^(?:async )?def (test\w*)", text, re.MULTILINE)
