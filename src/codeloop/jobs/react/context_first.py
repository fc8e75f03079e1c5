"""The agent's first move, before the ReAct loop: context first, then the edit, then the tests.

Measured (an outside side-by-side run on single-file repairs, same 1.5B weights): an agent
that put the named files in its first prompt, took whole rewritten files back and ran the
tests itself repaired 4 of 7 at ~7k tokens a task; our tool-first loop repaired none at 50k
(it never opened the module in 4 of 7 runs, and edited the tests instead). So:

1. The files the request names, and the workspace modules its test files import, go into
   one prompt (jobs/request_files.py), with the project's test output when it has tests.
2. The model answers with the files it changes: whole (small files) or SEARCH/REPLACE blocks
   (large ones); a reply that rewrote only some functions is merged by name (reply_files.py).
3. The files are written through the workspace tools (path guard, host policy, events); a
   test file is not written while the request asks to fix code (the tests are the spec).
4. The tests run in the sandbox; if they fail, a fresh prompt with the current files and the
   new failure, at most `max_rounds` rounds.

Passing tests (or, with no tests, files that parse: a Python file that does not is never
written) end the turn, after one more round when rules find the request only partly done
(jobs/edit_engine/request_coverage.py) and one to repair what that round broke; when those leave
the request undone, fresh samples of the first prompt, each judged whole by the tests, the
rules and the docstring examples (jobs/react/fresh_samples.py), else the files back as they
passed. The docstring examples of the changed functions run too (docstring_checks.py): one
that does not hold is a failure like a test's, with two rounds of its own. A request for
tests whose new tests still fail loses the failing ones (failing_new_tests.py). Otherwise the
ReAct loop goes on with what was learnt; a request that names no file (and whose workspace
has no file it could mean) goes to the loop directly: exploring is what the tools are for.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from codeloop.events import EventBus, Progress
from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edit_engine.api import Check, EditTask
from codeloop.jobs.edit_engine.context_plan import (
    Plan,
    plan_context,
    run_project_tests,
    safe_read,
    test_command,
)
from codeloop.jobs.edit_engine.direct_files import (
    project_texts,
    readable_text,
    restore_files,
)
from codeloop.jobs.edit_engine.docstring_checks import failed_examples
from codeloop.jobs.edit_engine.failing_new_tests import drop_failing_new_tests
from codeloop.jobs.edit_engine.failure_reading import read_failure, with_newline
from codeloop.jobs.edit_engine.prompting import edit_messages
from codeloop.jobs.edit_engine.reply_files import files_from_reply
from codeloop.jobs.edit_engine.request_coverage import quoted_part, unmet_parts
from codeloop.jobs.prompts import load_prompt
from codeloop.jobs.react.changed_lint import ChangedLint
from codeloop.jobs.react.fresh_samples import Files, Outcome, Start, sample_from_start
from codeloop.jobs.react.state import AgentSpec, AgentState, message
from codeloop.jobs.request_files import asks_to_change_tests, is_test_path
from codeloop.jobs.stage import ask_model
from codeloop.llm.base import LLM, LLMError
from codeloop.redaction import redact_secrets

MAX_ROUNDS = 3
MAX_CONTEXT_CHARS = 24_000  # beyond this the files go to the loop, which reads them in parts
# A retry whose prompt is one already asked, after a reply that repeated an earlier one, or
# after one cut off at the length limit (the 1.5B's greedy reply can loop on one line until
# the limit: a test file of 20 copies of one assert, cut mid-line, that does not parse), is
# sampled at this temperature: greedy decoding answers the same prompt the same way (measured:
# in 3 of the 8 failed tasks of the agent suite, two or three attempts got the same reply,
# token for token; the 1.5B's solve refinement wins with samples at 0.8, not greedy repairs).
RETRY_TEMPERATURE = 0.7
# After a pass that left the request partly done: a round for the rest, and one to repair
# what that round broke (measured: the 1.5B's first try at the rest often crashes a test);
# then fresh samples of the first prompt (jobs/react/fresh_samples.py).
COVERAGE_ROUNDS = 2
# After the first pass whose docstring examples fail: rounds left for them, whatever the
# attempt (measured: found at attempt 2 of 3, the one round left sent the file back).
DOCSTRING_ROUNDS = 2

# What a finished direct edit hands back as the turn's result: (files modified, files
# created, the answer) -> the result the agent's finish schema wants. The single agent's is
# {"answer": ...}; a phase agent (the multi-agent implementer) gives its own report.
Report = Callable[[list[str], list[str], str], dict[str, Any]]


def answer_report(modified: list[str], created: list[str], answer: str) -> dict[str, Any]:
    return {"answer": answer}


class ContextFirst:
    """The opening node of the single agent's graph (see the module docstring)."""

    def __init__(self, llm: LLM, spec: AgentSpec, bus: EventBus | None,
                 max_rounds: int = MAX_ROUNDS, *, request: str | None = None,
                 report: Report = answer_report) -> None:
        """`request`: the text the files are chosen by and the prompt shows, when it is not
        the turn's own request (a phase agent's turn holds its whole phase prompt)."""
        self.llm, self.spec, self.bus, self.max_rounds = llm, spec, bus, max_rounds
        self.request, self.report = request, report
        self.box = spec.toolbox
        self.prompt = load_prompt("codeloop.jobs.edit_engine", "edit")
        self.diagnose_prompt = load_prompt("codeloop.jobs.edit_engine", "diagnose")
        self.lint = ChangedLint(self._say)

    # ------------------------------------------------------------------ the node
    def __call__(self, state: AgentState) -> dict[str, Any]:
        request = self.request or next((m["content"] for m in state["messages"]
                                        if m["turn"] == state["turn"]
                                        and m["kind"] == "request"), "")
        ws = self.box.workspace
        files = ws.walk_files()
        existed, changed = set(files), []
        plan = plan_context(request, files, ws.read_text)
        if plan is None:
            return {}
        shown = {p: safe_read(ws.read_text, p) for p in plan.edit + plan.spec if p in files}
        if sum(len(t) for t in shown.values()) > MAX_CONTEXT_CHARS:
            self._say("the named files are too long for one prompt: exploring with the tools")
            return {}
        if any(redact_secrets(text) != text for text in shown.values()):
            # The model never sees a secret, and a file it sees redacted must not come back
            # whole (the placeholder would replace the secret): the tools edit in parts.
            self._say("a named file holds a secret: exploring with the tools")
            return {}
        command = test_command(files + plan.new)
        before = self.project_texts(files)
        self.lint.start(before)  # what the turn changes is linted against this
        original = dict(shown)  # each file's text before the turn, kept as files are written
        tokens, steps, notes, last, echoed, cut = 0, 0, [], [], False, False
        reading = ""  # the model's own account of the failure, asked once after two echoes
        echoes = 0
        unmet: list[str] = []  # set for the one round after a pass that left the request undone
        passing: dict[str, str] | None = None  # the files as they passed, before that round
        tested: dict[str, str] | None = None  # the files that passed the tests, not the examples
        rounds, attempt = self.max_rounds, 0
        start: Start | None = None  # the first prompt, for fresh samples after a partial pass
        asked: list[list[tuple[str, str]]] = []  # each attempt's prompt, as (role, text)
        replies: list[str] = []
        tests = self.run_tests(command)
        while attempt < rounds:
            attempt += 1
            if state["tokens"] + tokens >= self.spec.limits.token_budget:
                break
            self._say(f"context-first edit, attempt {attempt}: {', '.join(plan.edit + plan.new)}")
            messages = self._messages(request, plan, shown, tests, command, attempt, last, echoed,
                                      unmet, reading)
            prompt = [(m.role, m.content) for m in messages]
            if start is None:  # the first prompt, as asked, for fresh samples later
                first = (request, copy.deepcopy(plan), dict(shown), tests, command)
                start = Start.of(lambda parts, first=first: self._messages(
                    *first, 1, [], False, [], "", parts), plan, shown)
            # In the rounds after a pass (the rest of the request, the docstring examples) a
            # reply that changed nothing is not asked for again greedily: it would come back.
            after_pass = passing is not None or tested is not None
            repeated = (prompt in asked or cut or (echoed and after_pass)
                        or (len(replies) > 1 and replies[-1] in replies[:-1]))
            asked.append(prompt)
            try:
                reply = ask_model(self.llm, messages, stage=self.spec.name, bus=self.bus,
                                  max_tokens=self.prompt.max_tokens,
                                  temperature=RETRY_TEMPERATURE if repeated
                                  else self.prompt.temperature)
            except LLMError as exc:
                notes.append(f"the model call failed: {exc}")
                break
            replies.append(reply.text)
            tokens += reply.usage.total_tokens
            steps += 1
            changes, problems = files_from_reply(reply.text, plan, shown, request)
            cut = reply.finish_reason == "length"
            if cut:
                problems.append(f"attempt {attempt} was cut off at the length limit: write "
                                "each file once, without repeating lines")
            # Greedy decoding repeats itself: a file sent back as it is gets said so, which
            # changes the next prompt (measured: the 1.5B sent one wrong file three times).
            same = [p for p, text in changes.items() if shown.get(p) == text]
            echoed = bool(same)
            for path in changes:  # a file the prompt did not show may be written too
                if path in existed and path not in original:
                    text = readable_text(ws, path)
                    if text is not None:
                        original[path] = text
            written, refused = self.write_files({p: t for p, t in changes.items() if p not in same},
                                           plan)
            last = problems + refused
            notes += last
            repairing = passing is not None and tests is not None and not tests[0]
            if passing is not None and not written and (not repairing or attempt >= rounds):
                # "DONE", or nothing usable (a repair round with rounds left goes on below,
                # told it changed nothing)
                return self._end_partial(state, request, start, passing, unmet, before, command,
                                         Files(original, existed, shown, changed), tokens, steps)
            echoes += bool(same and not written)
            # Sent back unchanged twice (whole, then as functions): it does not see the bug.
            if (echoes >= 2 and not reading and attempt < rounds and tests and not tests[0]
                    and command):
                reading, used = self._diagnose(request, plan, shown, tests, command)
                tokens += used
                steps += 1 if used else 0
            if not written:
                if same:
                    last.append(f"attempt {attempt} sent {', '.join(same)} back unchanged: that "
                                "code gives the output above; change the lines it points at")
                else:
                    last.append(f"attempt {attempt} changed no file: reply with `FILE: path` "
                                "lines and fenced blocks")
                notes.append(f"attempt {attempt} changed no file")
                continue
            changed += [p for p in written if p not in changed]
            for path in written:
                shown[path] = changes[path]
                if path not in plan.edit and path not in plan.spec:
                    plan.edit.append(path)
            plan.new = [n for n in plan.new if n not in written]
            files = ws.walk_files()
            command = test_command(files)
            tests = self.run_tests(command)
            if passing is not None and tests is not None and not tests[0]:
                if attempt < rounds:  # one round to repair what the new changes broke
                    last = []  # the prompt says the rest broke the tests, with the notes
                    continue
                return self._end_partial(state, request, start, passing, unmet, before, command,
                                         Files(original, existed, shown, changed), tokens, steps)
            if tests is not None and tests[0] and passing is None:
                failed = failed_examples(self.box, before, self.project_texts(files))
                if failed:  # the docstrings of the changed code say otherwise: more rounds
                    self._say("the tests pass, but docstring examples do not hold")
                    tests, last = (False, f"{failed}\n\n{tests[1]}"), []
                    if tested is None:
                        rounds = max(rounds, attempt + DOCSTRING_ROUNDS)
                    tested = tested or {p: shown[p] for p in changed}
                    continue
            if tests is None or tests[0]:
                if passing is None:
                    unmet = unmet_parts(request, before, self.project_texts(files))
                if passing is None and unmet:
                    self._say("the tests pass, but the request is not all done: "
                              + " ".join(unmet))
                    passing = {p: shown[p] for p in changed}
                    rounds = attempt + COVERAGE_ROUNDS
                    last = []
                    continue
                return self._finished(state, changed, existed, tests, tokens, steps)
        if passing is not None:  # the repair rounds sent nothing that passes
            return self._end_partial(state, request, start, passing, unmet, before, command,
                                     Files(original, existed, shown, changed), tokens, steps)
        if tested is not None:  # no round passed the examples too: back to passing the tests
            tests = self._restore(tested, original, existed, shown, changed, command)
            self._say("no round made the docstring examples hold: back to the edit that "
                      "passed the tests")
            return self._finished(state, changed, existed, tests, tokens, steps)
        if tests is not None and not tests[0] and command and asks_to_change_tests(request):
            created = {p: shown[p] for p in changed if p not in existed and is_test_path(p)}
            dropped = drop_failing_new_tests(self, plan, shown, created, tests, command)
            if dropped:
                return self._finished(state, changed, existed, self.run_tests(command), tokens,
                                      steps, dropped)
        return self._hand_over(state, plan, shown, tests, command, notes, tokens, steps,
                               changed)

    # ------------------------------------------------------------------ the prompt
    def _messages(self, request: str, plan: Plan, shown: dict[str, str],
                  tests: tuple[bool, str] | None, command: str | None, attempt: int,
                  problems: list[str], echoed: bool, unmet: list[str], reading: str,
                  checklist: list[str] | None = None):
        # the kit's prompt (edit_engine/prompting.py), as build and review ask
        view = EditTask(request=request, files=shown, edit=plan.edit, spec=plan.spec,
                        new=plan.new, protect_tests=plan.protect)
        check = Check(tests[0], tests[1], command or "") if tests else None
        return edit_messages(self.prompt, view, shown, check, attempt, problems, unmet=unmet,
                             functions_only=echoed, reading=reading, checklist=checklist)

    def _diagnose(self, request: str, plan: Plan, shown: dict[str, str],
                  tests: tuple[bool, str], command: str) -> tuple[str, int]:
        return read_failure(self, request, plan, shown, tests, command,
                            lambda: self._say("the code came back unchanged: asking what is "
                                              "wrong first"))


    def write_files(self, changes: dict[str, str], plan: Plan) -> tuple[list[str], list[str]]:
        written, refused = [], []
        for path, content in changes.items():
            if plan.protect and is_test_path(path):
                refused.append(f"{path} was not changed: it is a test, and the request asks to "
                               "fix the code, not the tests")
                continue
            outcome = self.box.run("write_file", {"path": path, "content": content})
            if outcome.ok:
                written.append(path)
            else:
                refused.append(f"{path}: {outcome.output}")
        return written, refused

    def _end_partial(self, state: AgentState, request: str, start: Start | None,
                     passing: dict[str, str], unmet: list[str], before: dict[str, str],
                     command: str | None,
                     files: Files, tokens: int, steps: int) -> dict[str, Any]:
        """The rounds for the rest of the request are over without finishing it: fresh
        samples of the first prompt, the first that passes every check kept; else the files
        back as they passed."""
        budget = self.spec.limits.token_budget - state["tokens"] - tokens
        outcome = Outcome(False, 0, 0)
        if start is not None:
            self._say("the request is still not all done: fresh answers to the first prompt")
            missed = [quoted_part(note) for note in unmet]
            outcome = sample_from_start(self, start, files, request, missed, before, command,
                                        lambda spent: spent < budget)
        tokens, steps = tokens + outcome.tokens, steps + outcome.calls
        if outcome.kept:
            self._say("a fresh answer did all the request asks, and the tests pass")
            tests = self.run_tests(command)
        else:
            tests = self._restore(passing, files.original, files.existed, files.shown,
                                  files.changed, command)
            self._say("no round finished the request: back to the edit that passed the tests")
        return self._finished(state, files.changed, files.existed, tests, tokens, steps)

    # ------------------------------------------------------------------ tests
    def run_tests(self, command: str | None) -> tuple[bool, str] | None:
        """The project's tests in the sandbox (None without a command), judged with the lint
        of what the turn changed: a lint error fails like a test (changed_lint.py)."""
        tests = run_project_tests(self.box, command) if command else None
        return self.lint.judge(tests, self.project_texts(self.box.workspace.walk_files()))

    def _restore(self, passing: dict[str, str], original: dict[str, str], existed: set[str],
                 shown: dict[str, str], changed: list[str],
                 command: str | None) -> tuple[bool, str] | None:
        """The files back as they passed (see direct_files.restore_files), and the tests
        again, so the answer reports what is there."""
        restore_files(self.box, passing, original, existed, shown, changed)
        return self.run_tests(command)

    def project_texts(self, files: list[str]) -> dict[str, str]:
        return project_texts(self.box.workspace, files)

    # ------------------------------------------------------------------ endings
    def _finished(self, state: AgentState, changed: list[str], existed: set[str],
                  tests: tuple[bool, str] | None, tokens: int, steps: int,
                  dropped: list[str] | None = None) -> dict[str, Any]:
        verdict = "the tests pass" if tests else "the files parse (the project has no tests)"
        answer = f"Changed {', '.join(changed)}; {verdict}."
        answer += self.lint.answer_note(self.project_texts(self.box.workspace.walk_files()))
        if dropped:
            answer += (f" Left out {', '.join(dropped)}: written this turn, they failed "
                       "against the code they test.")
        self._say(answer)
        turn = state["turn"]
        result = self.report([p for p in changed if p in existed],
                             [p for p in changed if p not in existed], answer)
        return {"status": "finished", "answer": answer, "result": result,
                "tokens": state["tokens"] + tokens, "steps": state["steps"] + steps,
                "messages": [message("assistant", answer, "answer", turn)]}

    def _hand_over(self, state: AgentState, plan: Plan, shown: dict[str, str],
                   tests: tuple[bool, str] | None, command: str | None, notes: list[str],
                   tokens: int, steps: int, changed: list[str]) -> dict[str, Any]:
        """The loop goes on: it is told the files (as they are now) and the test output."""
        if steps == 0 and not notes:
            return {}
        parts = ["A first direct attempt did not finish the request."]
        parts += [f"- {n}" for n in notes[-6:]]
        for path in plan.spec + plan.edit:
            if path in shown:
                parts.append(f"{path} now:\n```{language_of(path)}\n{with_newline(shown[path])}```")
        if tests:  # the test output, or the lint errors of a project without tests
            parts.append(f"{command}:\n{tests[1]}" if command else tests[1])
        self._say("context-first edit did not pass: going on with the tools")
        progress = dict(state["progress"])
        progress["known"] = sorted(set(progress.get("known", [])) | set(shown))
        # What the direct attempts wrote was changed in this turn: the held finish and the
        # progress note must count it (a report naming those files is not a false claim).
        progress["files"] = {**progress.get("files", {}), **dict.fromkeys(changed, "changed")}
        if changed and tests is not None:
            progress["tests"] = "passed" if tests[0] else "failed"
        spent = state["tokens"] + tokens
        return {"tokens": spent, "steps": state["steps"] + steps, "progress": progress,
                "budget": spent + self.spec.limits.after_direct_budget,
                "messages": [message("user", "\n\n".join(parts), "context", state["turn"])]}

    def _say(self, text: str) -> None:
        if self.bus is not None:
            self.bus.emit(Progress(done=0, total=self.max_rounds,
                                   message=f"[{self.spec.name}] {text}"))
