"""run_edit: the engine's rounds (see the package docstring for the whole picture).

Each round: one fresh prompt (the request, the files as they are now, the latest failure,
the notes of the round before), the reply read tolerantly (whole files, functions merged by
name, SEARCH/REPLACE blocks, malformed blocks, content the model did not mean to change
kept), the changed files written through the site (which guards every write), then the
site's check. It ends when the check passes; after a pass whose files leave part of the
request undone (request_coverage), one round for the rest, kept only if it passes too. Where
the site counts passing tests (Check.score), rounds that end worse than an earlier one are
undone at the end: the files go back to the round with the most tests passing.

An echo (a file sent back unchanged, or only the tests rewritten) is met with another
framing, not the same prompt: the failing assertion worked through and the suspicious lines
(echo_focus.py); after a second echo the functions the failure calls are shown without
their bodies and asked for anew (blank_bodies.py), or, where it names none, the model is asked
for its reading of the failure in prose (failure_reading.py, one call more), which goes into
the next prompt; that prompt, like any asked before, is sampled at RETRY_TEMPERATURE (greedy
decoding answers the same prompt the same way). Where the model wrote the tests too (build: `after_two_echoes=
"restart"`), two echoes mean it stands by its code against its own tests: the reading did
not move it in any of five such build tasks on the 1.5B, so the rounds end there and the
caller may repair the tests; unless the failure was raised inside the model's own files
(raised_in.py: a module that does not import), which no test repair helps. That code gets
one new answer to the first prompt instead (the bad file not shown, the error it raised
said), sampled at FRESH_TEMPERATURE: shown its module, the 1.5B sent the same failing
decorator back through every framing; unshown, a sampled rewrite passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from codeloop.events import EventBus
from codeloop.jobs.edit_engine.api import Check, EditResult, EditSite, EditTask
from codeloop.jobs.edit_engine.blank_bodies import (
    blanked_view,
    without_lines_of,
    without_placeholder,
)
from codeloop.jobs.edit_engine.context_plan import Plan
from codeloop.jobs.edit_engine.copied_tests import copied_note, copied_tests
from codeloop.jobs.edit_engine.echo_focus import LINES_NOTE, echo_focus
from codeloop.jobs.edit_engine.failing_new_tests import failing_tests
from codeloop.jobs.edit_engine.failure_reading import failure_reading
from codeloop.jobs.edit_engine.failure_trace import failure_trace
from codeloop.jobs.edit_engine.missing_field import missing_field_reading
from codeloop.jobs.edit_engine.operand_types import operand_reading
from codeloop.jobs.edit_engine.prompting import edit_messages, edit_prompt
from codeloop.jobs.edit_engine.raised_in import raised_in
from codeloop.jobs.edit_engine.reply_files import files_from_reply
from codeloop.jobs.edit_engine.request_coverage import unmet_parts
from codeloop.jobs.forgotten_imports import (
    STANDARD_LIBRARY,
    add_forgotten_imports,
    importable_modules,
)
from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.request_files import is_test_path
from codeloop.jobs.runaway import runaway
from codeloop.jobs.stage import ask_model
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLM

MAX_ROUNDS = 3
DIAGNOSE = ("codeloop.jobs.edit_engine", "diagnose")
_TEST_IMPORTABLE = importable_modules([])
RETRY_TEMPERATURE = 0.7  # as the agent's direct edit (jobs/react/context_first.py)
FRESH_TEMPERATURE = 0.8  # as the agent's fresh samples (jobs/react/fresh_samples.py)
_BLANKED = ("The body of {} is left out above: the one it had failed as shown. Write that "
            "function whole again, its body anew, from its docstring, the request and the "
            "failure.")


def run_edit(llm: LLM, task: EditTask, site: EditSite, *, rounds: int = MAX_ROUNDS,
             bus: EventBus | None = None, stage: str = "edit",
             usage: UsageRecord | None = None,
             say: Callable[[str], None] | None = None,
             sample_first: bool = False, after_two_echoes: str = "read") -> EditResult:
    """Have the model change `task`'s files until `site.check()` passes, at most `rounds`
    model calls (one more for the rest of a partly done request counts among them).
    Every call is counted in `usage` and emitted on `bus` (as `stage`); a model error
    (LLMError) propagates to the caller. `sample_first`:
    the first call samples too (the caller's last attempt at this prompt changed nothing).
    `after_two_echoes`: "read" asks for the model's reading of the failure (the agent's,
    review's); "restart" (build, whose tests the model wrote too) gives code that raises in
    its own files one fresh answer to the first prompt (sampled once more, beyond `rounds`,
    when that answer held no usable file), and otherwise ends the rounds: the model stands
    by its code against its own tests, which the caller may repair."""
    spec = edit_prompt()
    usage = usage if usage is not None else UsageRecord()
    start = UsageRecord(**usage.as_dict())
    plan = _first_plan(task)
    shown = dict(task.files)
    before = dict(task.files)
    check = task.failure
    result = EditResult(files={}, passed=False, check=check)
    problems: list[str] = []
    hidden: set[str] = set()  # test files the replies copied as code: not shown again
    asked: list[list[tuple[str, str]]] = []
    echoes = 0
    unmet: list[str] = []
    passing: dict[str, str] | None = None  # the files as they passed, before a coverage round
    reading = ""  # the model's reading of the failure, after two echoes
    blanking = False  # after two echoes: the failing functions shown without their bodies
    # most tests passing: (score, the files); the start counts where the site scored it
    # (review: a refinement that breaks a test that passed is not carried into the next)
    best: tuple[int, dict[str, str], int] | None = None  # (score, the files, the round)
    if check is not None and check.score is not None:
        best = (check.score, {p: before[p] for p in plan.edit if p in before}, 0)
    restart = ""  # after two echoes of code that raises: why the first prompt is asked again
    restart_round = 0  # the round that asks it
    resampled = False  # the restart asked once more after an answer with no usable file
    undone = False  # every round undone: the files are back as they were at the start
    attempt = 0
    while attempt < rounds:
        attempt += 1
        if attempt == restart_round:
            # the first prompt, with what the earlier answer raised, sampled: a new whole
            # answer, not a repair of the code the model keeps sending back
            messages = edit_messages(spec, replace(task, request=f"{task.request}\n\n{restart}"),
                                     _without(task.files, hidden), task.failure, 1, [])
            fresh = _first_plan(task)
        else:
            # the plan, not the task: a file an earlier round created is shown as it is now
            # (it was listed as "to create" again, unseen, in every later round)
            view = replace(task, edit=list(plan.edit), new=list(plan.new))
            files, blanked, failure = _without(shown, hidden), [], check
            if blanking and check is not None and not check.passed:
                # it sent the body back unchanged twice: not shown, asked anew
                files, blanked = blanked_view(check.output, shown, _editable(plan))
                files = _without(files, hidden)
                if blanked:  # the old lines, quoted by echo_focus or pytest, go too
                    problems = [n for n in problems if not n.startswith(LINES_NOTE)]
                    problems.append(_BLANKED.format(", ".join(blanked)))
                    failure = replace(check, output=without_lines_of(check.output, shown,
                                                                      files))
            messages = edit_messages(spec, view, files, failure, attempt, problems,
                                     unmet=unmet, reading=reading)
            fresh = None
        prompt = [(m.role, m.content) for m in messages]
        repeated = prompt in asked or echoes >= 2 or (sample_first and attempt == 1) or \
            (len(result.replies) > 1 and result.replies[-1] in result.replies[:-1])
        asked.append(prompt)
        result.prompts.append(messages[-1].content)
        _say(say, f"edit, attempt {attempt}: {', '.join(plan.edit + plan.new)}"
                  + (" (the first prompt again, sampled)" if fresh else ""))
        # a model error propagates: the job decides what a failed call means (review
        # records the run as interrupted, to resume)
        temperature = FRESH_TEMPERATURE if fresh else \
            RETRY_TEMPERATURE if repeated else spec.temperature
        # a reply looping over one statement is stopped there, read as cut (runaway.py: the
        # 1.5B's shortener S1 at f6b8a6d rewrote its tests in a code round, `assert
        # encode(n) == ...` to the 1536-token limit, 151 s)
        reply = ask_model(llm, messages, stage=stage, bus=bus, usage=usage,
                          max_tokens=min(spec.max_tokens, task.max_tokens or spec.max_tokens),
                          temperature=temperature, until=runaway)
        result.replies.append(reply.text)
        if fresh is not None:  # read against the files as the first prompt showed them
            changes, problems = files_from_reply(reply.text, fresh, dict(task.files),
                                                 task.request)
        else:
            changes, problems = files_from_reply(reply.text, plan, shown, task.request)
        # the tests sent back as the code: not shown again (copied_tests.py)
        if copies := copied_tests(changes, shown, plan.spec, plan.edit + plan.new):
            hidden.update(copies.values())
            changes = {p: t for p, t in changes.items() if p not in copies}
            problems.append(copied_note(attempt, copies))
        if blanking:  # the placeholder line, copied back with the new body
            changes = {p: without_placeholder(t) for p, t in changes.items()}
        changes = _with_forgotten_imports(changes, result.notes)
        changes = _prepared(site, changes, problems)
        if reply.finish_reason == "length":
            problems.append(f"attempt {attempt} was cut off at the length limit: write each "
                            "file once, without repeating lines")
        same = [p for p, text in changes.items() if shown.get(p) == text]
        # a reply that only rewrote the tests (the specification) did not see the bug either
        tests_only = [p for p in changes if p not in same and _protected(plan, p)]
        written = _write(site, plan, {p: t for p, t in changes.items() if p not in same},
                         problems)
        if not written:
            result.notes += problems
            if passing is not None:  # "DONE" or nothing usable for the rest: keep the pass
                break
            echoed = [p for p in same if not _protected(plan, p)]  # the code, unchanged
            tests_only += [p for p in same if _protected(plan, p) and not echoed]
            if echoed or tests_only:
                echoes += 1
                result.notes.append(f"attempt {attempt} sent {', '.join(echoed)} back "
                                    "unchanged" if echoed else
                                    f"attempt {attempt} changed only {', '.join(tests_only)}")
                problems += echo_focus(check.output if check else "", shown, plan.edit, echoed,
                                       tests_only)
                stands_by = echoes >= 2 and check is not None and not check.passed
                raised = raised_in(check.output, [p for p in plan.edit
                                                  if not _protected(plan, p)], shown) \
                    if stands_by else []
                # a test the harness wrote fails and the code does not raise: the code is
                # wrong by the task's own words, so it gets the blanked round, not the end of
                # the rounds that leaves the model's own tests to be repaired
                anchored = stands_by and not raised \
                    and bool(set(failing_tests(check.output)) & set(task.trusted))
                if stands_by and after_two_echoes == "restart" and not anchored:
                    if restart or not raised or attempt >= rounds:
                        _say(say, "the code came back unchanged twice: "
                                  + ("it still raises" if raised else
                                     "its tests fail on their own checks, not in the code"))
                        break
                    restart = (f"An earlier answer to this request did not work: "
                               f"{raised[0].said(shown.get(raised[0].path, ''))}. Write the "
                               "code another way.")
                    restart_round = attempt + 1
                    _say(say, f"the code came back unchanged twice and {raised[0].path} "
                              "raises: the first prompt again, for a new answer")
                elif stands_by and not reading and not blanking and attempt < rounds:
                    # twice unchanged: it does not see the bug. The functions the failure
                    # calls are asked anew, their bodies not shown (blank_bodies.py); where
                    # it names none, its own reading of the failure goes into the next
                    # prompt (as the agent's direct edit does)
                    blanking = bool(blanked_view(check.output, shown, _editable(plan))[1])
                    if blanking:
                        _say(say, "the code came back unchanged twice: the functions the "
                                  "failure calls asked anew, their bodies not shown")
                        continue
                    _say(say, "the code came back unchanged twice: asking what is wrong first")
                    reading, _ = failure_reading(
                        llm, load_prompt(*DIAGNOSE), task.request, plan, shown, check.output,
                        check.label, _trace(site, plan), stage=stage, bus=bus, usage=usage)
            else:
                if not any("does not parse" in p or "sent the tests back" in p
                           for p in problems):  # said already, more precisely
                    problems.append(f"attempt {attempt} changed no file: reply with a line "
                                    "`FILE: path` and the file's new content in a fenced block")
                result.notes.append(f"attempt {attempt} changed no file")
                if fresh is not None and not resampled:
                    # the fresh answer held nothing usable (a file that does not parse:
                    # the 1.5B's todo T2): one more sample of the same prompt, beyond the
                    # rounds, so the restart is not spent on an unparsable reply
                    resampled = True
                    restart_round = attempt + 1
                    rounds = max(rounds, restart_round)
                    _say(say, "the new answer held no usable file: one more sample")
            continue
        result.notes += problems
        for path in written:
            shown[path] = changes[path]
            result.files[path] = changes[path]
            if path not in plan.edit:
                plan.edit.append(path)
        plan.new = [n for n in plan.new if n not in written]
        check = site.check()
        if check is not None and not check.passed:
            if passing is not None:  # the round for the rest broke the checks: undo it
                _restore(site, passing, shown, result)
                check = site.check()
                break
            if check.score is not None and (best is None or check.score > best[0]):
                best = (check.score, {**(best[1] if best else {}),
                                      **{p: shown[p] for p in result.files}}, attempt)
            if said := missing_field_reading(check.output) or operand_reading(check.output):
                problems.append(said)
            continue
        if passing is None and attempt < rounds:
            unmet = unmet_parts(task.request, before, shown)
            if unmet:
                _say(say, "the checks pass, but the request is not all done: " + " ".join(unmet))
                passing = {p: shown[p] for p in result.files}
                problems = []
                continue
        break
    if check is not None and not check.passed and best is not None \
            and (check.score is None or check.score < best[0]):
        # a later round made it worse (the 1.5B's S1: 1 of 2 passing, then a module that
        # does not import): the files go back to the round with the most tests passing
        note = (f"the last round left fewer tests passing: back to the round where {best[0]} "
                "passed" if best[2] else "the rounds left fewer tests passing than before them: "
                f"the files are back as they were ({best[0]} passed)")
        _say(say, note)
        result.notes.append(note)
        _restore(site, best[1], shown, result)
        check = site.check()
        undone = best[2] == 0
    result.check = check
    # undone back to the start: whatever the checks say now, the rounds did nothing
    result.passed = (check.passed if check is not None else bool(result.files)) and not undone
    result.rounds = attempt
    result.calls = usage.calls - start.calls
    result.prompt_tokens = usage.prompt_tokens - start.prompt_tokens
    result.completion_tokens = usage.completion_tokens - start.completion_tokens
    return result


def _editable(plan: Plan) -> list[str]:
    return [p for p in plan.edit if not _protected(plan, p)]


def _first_plan(task: EditTask) -> Plan:
    """The files as the task names them (a round's plan grows with the files it writes)."""
    return Plan(edit=list(task.edit), spec=list(task.spec), new=list(task.new),
                protect=task.protect_tests)


def _with_forgotten_imports(changes: dict[str, str], notes: list[str]) -> dict[str, str]:
    """Each Python file with the standard-library imports it uses and forgot (`os.getenv`
    with no `import os`; tests may also use pytest): the harness adds them, as a said note."""
    out = {}
    for path, text in changes.items():
        if path.endswith(".py"):
            importable = _TEST_IMPORTABLE if is_test_path(path) else STANDARD_LIBRARY
            text, added = add_forgotten_imports(text, importable)
            if added:
                notes.append(f"added the forgotten import(s) {', '.join(added)} to {path}")
        out[path] = text
    return out


def _trace(site: EditSite, plan: Plan) -> str:
    """What the code did in the first failing test, for a site whose files are a workspace
    (the agent's and build's); "" for one that has no toolbox (review's)."""
    box = getattr(site, "box", None)
    return failure_trace(box, plan.edit) if box is not None else ""


def _prepared(site: EditSite, changes: dict[str, str], problems: list[str]
              ) -> dict[str, str]:
    """Each change as the site's optional `prepare(path, text) -> (text, notes)` makes it
    before the write (build puts the import of a class main defines in place of a copy);
    its notes go into the next prompt, so what the model sees is what is on disk."""
    prepare = getattr(site, "prepare", None)
    if prepare is None:
        return changes
    out = {}
    for path, text in changes.items():
        out[path], notes = prepare(path, text)
        problems += notes
    return out


def _write(site: EditSite, plan: Plan, changes: dict[str, str], problems: list[str]
           ) -> list[str]:
    """Write each change through the site; what it refuses (and a test file the task
    protects) goes into `problems` for the next prompt."""
    written = []
    for path, text in changes.items():
        if _protected(plan, path):
            problems.append(f"{path} was not changed: it is a test, the specification; change "
                            "the code instead" if is_test_path(path) else
                            f"{path} was not changed: it is shown read only; change only "
                            f"{', '.join(plan.edit + plan.new) or 'the files to edit'}")
            continue
        refused = site.write(path, text)
        if refused is None:
            written.append(path)
        else:
            problems.append(refused)
    return written


def _without(files: dict[str, str], hidden: set[str]) -> dict[str, str]:
    return {p: t for p, t in files.items() if p not in hidden}


def _protected(plan: Plan, path: str) -> bool:
    return path in plan.spec or (plan.protect and is_test_path(path))


def _restore(site: EditSite, passing: dict[str, str], shown: dict[str, str],
             result: EditResult) -> None:
    """The files back as they passed (a file the last round added is left: the site decides
    what an unwanted new file means)."""
    for path, text in passing.items():
        if shown.get(path) != text and site.write(path, text) is None:
            shown[path] = result.files[path] = text


def _say(say: Callable[[str], None] | None, text: str) -> None:
    if say is not None:
        say(text)


__all__ = ["Check", "run_edit"]
