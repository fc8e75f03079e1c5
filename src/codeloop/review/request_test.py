"""The change request as a test, written before any fix and kept only where it fails on the
code under review: then the review can measure whether the request is done, instead of
taking the small model's word for it.

Measured on the 1.5B (benchmarks/review_bench.py, 14 cases): every workspace test passed
before and after each change, so the checks could not tell a fix from no fix; the model
reviewer approved changes that left the problem (an unguarded bool, a re-wrapped
`yaml.load`) and refused right ones for made-up reasons ("auth_headers should be defined at
the top of the file"), and the refiner, told only the request again, sent the file back
unchanged. A test that fails on the code as it is gives the refiner a concrete assertion
and the reviewer a fact.

The model writes the tests through the kit's edit engine (only the test file may be
written; the code is shown read only) and the sandbox runs them on the code under review.
A test function is kept when it fails there the way a missing behaviour fails: an assertion
or a `pytest.raises` that did not raise, in the test. A test that fails otherwise (a name
never imported, a call with the wrong arguments, an exception from the code such as a file
its setup never made) or passes already says nothing sure about the request and is dropped; with
none left after ROUNDS model calls there is no request test and the review goes on as
before. The file is never part of the change a person approves: it is laid over the sandbox
copy when the review's tests run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from codeloop.jobs.edit_engine import Check, EditTask, run_edit
from codeloop.jobs.edit_engine.failing_new_tests import without_functions
from codeloop.jobs.prompts import prompt_file, render
from codeloop.jobs.request_files import is_test_path
from codeloop.jobs.usage import UsageRecord
from codeloop.review.checks import run_workspace_tests, syntax_error
from codeloop.review.context import ReviewContext
from codeloop.review.debug import DebugTrail
from codeloop.review.request_test_contradiction import (
    raise_against_the_spec,
    returning_calls,
    summary_ids,
)
from codeloop.review.request_test_focus import (
    blind_assertion,
    defined_names,
    invented_raise,
    request_names,
)
from codeloop.review.state import ReviewState

ROUNDS = 2
FILE_NAME = "test_codeloop_request.py"
MAX_CODE_FILES = 3
# exceptions that say the test itself is wrong wherever they are raised
TEST_MISTAKES = ("NameError", "ImportError", "ModuleNotFoundError", "SyntaxError",
                 "IndentationError", "fixture")
_SECTION = re.compile(r"^_{3,} (.+?) _{3,}$", re.MULTILINE)
_LAST_FRAME = re.compile(r"^(\S+?\.py):(\d+): (\w[\w.]*)$", re.MULTILINE)
_E_LINE = re.compile(r"^E\s+(.+)$", re.MULTILINE)


def _failing_sections(stdout: str, path: str) -> list[tuple[str, str]]:
    """(test function, its section of pytest's long output) for each failing case of a test
    function of `path`."""
    found = []
    titles = list(_SECTION.finditer(stdout))
    for number, title in enumerate(titles):
        end = titles[number + 1].start() if number + 1 < len(titles) else len(stdout)
        body, name = stdout[title.end():end], title.group(1)
        frames = _LAST_FRAME.findall(body)  # the first frame is the test function's own
        if name.startswith(("ERROR", "short test summary")) or not frames \
                or not frames[0][0].endswith(PurePosixPath(path).name):
            continue
        found.append((name.split("[")[0], body))
    return found


def failure_texts(stdout: str, path: str) -> dict[str, list[str]]:
    """{test function: [its `E` lines, one text per failing case]} for the failing test
    functions of `path` in pytest's long output (the summary lines are cut at 80 columns:
    two different values can read the same there)."""
    texts: dict[str, list[str]] = {}
    for name, body in _failing_sections(stdout, path):
        texts.setdefault(name, []).append(
            "\n".join(line.rstrip() for line in _E_LINE.findall(body)))
    return {name: sorted(found) for name, found in texts.items()}


def failing_source_lines(stdout: str, path: str) -> list[str]:
    """The source lines pytest marks with `>` in the failing cases of `path`'s tests."""
    return [line[1:].strip() for _name, body in _failing_sections(stdout, path)
            for line in body.splitlines() if line.startswith(">")]


@dataclass
class Verdicts:
    """What the request test's run on the code under review says of each test function."""

    reproduced: list[str] = field(default_factory=list)  # fail as a missing behaviour does
    mistaken: dict[str, str] = field(default_factory=dict)  # name -> why it is wrong itself
    passed: int = 0
    broken: str = ""  # the file does not run at all (collection error), why


def overlay(state: ReviewState) -> dict[str, str]:
    """{path: content} of the run's request test, to lay over the sandbox copy ({} when
    there is none or it was set aside; .get: a checkpoint from before request tests)."""
    found = state.get("request_test") or {}
    if not found.get("path") or not found.get("reproduced"):
        return {}  # all set aside: they did not see the change (request_test_unseen.py)
    return {found["path"]: found["content"]}


def target_files(state: ReviewState) -> list[str]:
    """The code a request test is written for: the Python files under review (not tests),
    when the review has a request about existing files and the workspace's tests pass now
    (failing tests already are the concrete failure)."""
    if not state["request"] or state["workflow_type"] != "review":
        return []
    return [a["file_path"] for a in state["artifacts"] if a["file_path"].endswith(".py")
            and not is_test_path(a["file_path"])][:MAX_CODE_FILES]


def test_path(state: ReviewState, spec: dict[str, str], file_name: str = FILE_NAME) -> str:
    """Beside the workspace tests that import the code (so imports resolve as theirs do),
    under a name no workspace file has."""
    folder = PurePosixPath(next(iter(spec))).parent if spec else PurePosixPath(".")
    taken = {*state["originals"], *state["test_files"]}
    name, number = file_name, 1
    while str(folder / name).removeprefix("./") in taken:
        number += 1
        name = file_name.replace(".py", f"_{number}.py")
    return str(folder / name).removeprefix("./")


def judge(stdout: str, path: str) -> Verdicts:
    """Each failing test function of `path` in pytest's output, reproduced or mistaken."""
    verdicts = Verdicts()
    summary = re.search(r"(\d+) passed", stdout.strip().splitlines()[-1] if stdout.strip()
                        else "")
    verdicts.passed = int(summary.group(1)) if summary else 0
    titles = list(_SECTION.finditer(stdout))
    for number, title in enumerate(titles):
        end = titles[number + 1].start() if number + 1 < len(titles) else len(stdout)
        body = stdout[title.end():end]
        name = title.group(1)
        if name.startswith(("ERROR collecting", "ERROR at setup")):
            why = (_E_LINE.findall(body) or ["the file could not be collected"])[0]
            if name.startswith("ERROR collecting"):
                verdicts.broken = why.strip()
            else:
                verdicts.mistaken[name.rsplit(" ", 1)[-1].split("[")[0]] = why.strip()
            continue
        if name in ("short test summary info",) or name.startswith("="):
            continue
        function = name.split("[")[0]
        frames = _LAST_FRAME.findall(body)
        if not frames:
            continue
        where, _line, kind = frames[-1]
        message = (_E_LINE.findall(body) or [kind])[0].strip()
        in_test = where.endswith(PurePosixPath(path).name) and not where.startswith("/")
        # Only an assertion, or a `pytest.raises` that did not raise, in the test itself says
        # the behaviour is missing: an exception from the code (a FileNotFoundError for a file
        # the test never made, on the 1.5B's path_traversal) is as often the test's setup.
        mistaken = not in_test or kind not in ("AssertionError", "Failed") or any(
            kind.startswith(m) or message.startswith(m) for m in TEST_MISTAKES)
        if "." in function:  # a method of a test class: kept or dropped with its class
            if mistaken:
                verdicts.broken = (f"{function}: {message}: write top-level test functions, "
                                   "each correct on its own")
            continue
        if mistaken:
            verdicts.mistaken[function] = message
        elif function not in verdicts.reproduced:
            verdicts.reproduced.append(function)
    for function in verdicts.reproduced:
        verdicts.mistaken.pop(function, None)  # one parameter failing right is enough
    return verdicts


class RequestTestSite:
    """Only the request test may be written; its check runs it alone on the code under
    review in the sandbox and passes when a test function reproduces the problem."""

    def __init__(self, state: ReviewState, ctx: ReviewContext, trail: DebugTrail,
                 path: str, code: dict[str, str], spec: dict[str, str]) -> None:
        self.state, self.ctx, self.trail, self.path = state, ctx, trail, path
        self.names = request_names(state["request"], code)  # what the request is about
        self.defined = defined_names(code)
        # the calls the workspace's passing tests expect to return (request_test_contradiction)
        self.returning = returning_calls(
            spec, set(summary_ids(state["baseline_tests"].get("failures") or [])),
            self.defined)
        self.text: str | None = None
        self.verdicts: Verdicts | None = None
        self.stdout = ""  # pytest's output of the last run

    def write(self, path: str, text: str) -> str | None:
        if path != self.path:
            return f"{path}: only {self.path} may be written here, the code stays as it is"
        problem = syntax_error(path, text)
        if problem:
            return problem
        if "def test" not in text:
            return f"{path} holds no test function (def test_...)"
        self.text = text
        return None

    def run(self, text: str) -> tuple[Verdicts, dict[str, Any]]:
        result = run_workspace_tests(self.state["workspace"], self.state["artifacts"],
                                     timeout=self.ctx.sandbox_timeout,
                                     unsafe_no_sandbox=self.ctx.unsafe_no_sandbox,
                                     extra={self.path: text}, only=[self.path])
        self.stdout = result["stdout"]
        verdicts = judge(result["stdout"], self.path)
        for function, body in _failing_sections(self.stdout, self.path):
            failing = next((line[1:].strip() for line in body.splitlines()
                            if line.startswith(">")), "")
            if function not in verdicts.reproduced:
                continue
            invented = invented_raise(body, self.state["request"])
            contradicted = raise_against_the_spec(text, function, body, self.returning,
                                                  self.defined)
            if invented:
                verdicts.reproduced.remove(function)
                verdicts.mistaken[function] = (
                    f"it expects {invented} to be raised, which the request never asks for: "
                    "test what the request asks")
            elif contradicted:
                verdicts.reproduced.remove(function)
                verdicts.mistaken[function] = contradicted
            elif blind_assertion(text, function, failing, self.names):
                verdicts.reproduced.remove(function)
                verdicts.mistaken[function] = (
                    f"its failing assertion `{failing}` looks at none of "
                    f"{', '.join(sorted(self.names))}, which the request is about: no change "
                    "to them can make it pass")
        return verdicts, result

    def check(self) -> Check | None:
        if self.text is None:
            return None
        self.verdicts, result = self.run(self.text)
        verdicts = self.verdicts
        self.trail.log("tool_call", f"request test on the code under review: "
                                    f"{len(verdicts.reproduced)} reproduce the problem, "
                                    f"{verdicts.passed} pass, {len(verdicts.mistaken)} wrong",
                       {"mistaken": verdicts.mistaken, "broken": verdicts.broken})
        if verdicts.reproduced and not verdicts.broken:
            return Check(True, "")
        lines = [f"{self.path} does not run: {verdicts.broken}"] if verdicts.broken else []
        lines += [f"{name} is wrong itself: {why}" for name, why in verdicts.mistaken.items()]
        if verdicts.passed and not verdicts.reproduced:
            lines.append(f"{verdicts.passed} test(s) pass on the code as it is, which still "
                         "has the problem: they do not check what the request asks")
        return Check(False, "\n".join(lines) or result["output_tail"][-800:])


def write_request_test(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
                       trail: DebugTrail, spec: dict[str, str]) -> dict[str, Any] | None:
    """{path, content, reproduced: [names], failed_with: {name: [what pytest said]}} of a
    test of the request that fails on the code under review, or None. `spec`: the workspace tests that import the code (shown as the
    example of how to import and call it)."""
    targets = target_files(state)
    if not targets:
        return None
    code = {a["file_path"]: a["content"] for a in state["artifacts"]
            if a["file_path"] in targets}
    path = test_path(state, spec)
    site = RequestTestSite(state, ctx, trail, path, code, spec)
    request = render(prompt_file("codeloop.review", "engine")["request_test"],
                     request=state["request"], test_path=path, code=list(code))
    task = EditTask(request=request, files={**code, **spec}, edit=[], new=[path],
                    spec=[*code, *spec], protect_tests=False)
    result = run_edit(ctx.llm, task, site, rounds=ROUNDS, bus=ctx.bus, stage="reviewer",
                      usage=usage, say=lambda text: trail.log("thinking", text))
    if site.text is None or site.verdicts is None or not site.verdicts.reproduced:
        trail.log("thinking", "no request test: none of the tests written fails on the code "
                              f"as it is ({'; '.join(result.notes[-2:]) or 'no test file'})")
        return None
    verdicts = site.verdicts
    keep = set(verdicts.reproduced)
    drop = {n for n in re.findall(r"^(?:async )?def (test\w*)", site.text, re.MULTILINE)
            if n not in keep}
    text = without_functions(site.text, drop) if drop else site.text
    if text is None:
        return None
    if drop:  # the pruned file must still run and still reproduce
        again, _ = site.run(text)
        if again.broken or not again.reproduced:
            return None
        keep = set(again.reproduced)
    trail.log("thinking", f"request test {path}: {', '.join(sorted(keep))} fail on the code "
                          "as it is; the review runs them with the workspace's tests")
    trail.log("result", text, {"prompt": "request_test", "path": path})
    failed = {name: found for name, found in failure_texts(site.stdout, path).items()
              if name in keep}
    return {"path": path, "content": text, "reproduced": sorted(keep), "failed_with": failed}


def set_aside(found: dict[str, Any], dropped: set[str], why: str,
              content: str | None = None) -> dict[str, Any]:
    """The run's request test `found` with the test functions `dropped` set aside, or, with
    `content`, every function kept in that trimmed text: {..., reproduced: the rest, content,
    failed_with of the rest, set_aside: why}. None left: no request test is laid over the
    runs (overlay), the content kept as it was for the person to read."""
    rest = [name for name in found.get("reproduced") or [] if name not in dropped]
    if content is None:
        content = without_functions(found["content"], dropped) if rest else None
        if content is None:
            rest = []
    return {**found, "reproduced": rest, "content": content or found["content"],
            "failed_with": {n: t for n, t in (found.get("failed_with") or {}).items()
                            if n in rest},
            "set_aside": why}
