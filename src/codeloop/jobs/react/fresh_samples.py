"""Fresh samples of the first prompt, chosen by execution: the context-first edit's last try
when an edit passed the tests with the request only partly done and the rounds for the rest
did not finish it (jobs/react/context_first.py).

Why fresh samples and not more repair rounds: the rounds for the rest and their repairs
start from the half-done edit, and the 1.5B keeps its mistakes (measured on the agent suite:
it sorted formatted strings by `.priority`, twice; it sent the same broken settings.py back,
greedy and sampled). A new answer to the first prompt, at the retry temperature, is a
different whole edit: on config_max_retries 1 of 4 such samples did everything asked, where
no repair round had. The same finding as solve's (prompts/refinement.yaml in solve: fresh
samples fixed about 4x more than repairs holding the wrong code). The prompt is the first
one with the parts of the request the first edit missed listed as easy to miss: with that
list, one of four samples did all of config_max_retries, none of three without it.

A sample is kept only when the tests pass, the request rules find nothing left undone
(request_coverage.py) and the docstring examples of the changed functions hold
(docstring_checks.py): the model's say-so counts for nothing. The workspace goes back to how
it was before the turn for each sample; when none is kept, the caller puts back the edit
that passed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from codeloop.jobs.edit_engine.context_plan import Plan
from codeloop.jobs.edit_engine.direct_files import restore_files
from codeloop.jobs.edit_engine.docstring_checks import failed_examples
from codeloop.jobs.edit_engine.reply_files import files_from_reply
from codeloop.jobs.edit_engine.request_coverage import unmet_parts
from codeloop.jobs.stage import ask_model
from codeloop.llm.base import LLMError

FRESH_SAMPLES = 3
SAMPLE_TEMPERATURE = 0.8  # solve's refinement samples at 0.8 too; at 0.7 the 1.5B's three
# samples of config_max_retries's first prompt came back identical


@dataclass
class Start:
    """The first attempt as it was asked: its prompt (given the parts of the request to
    point out), and the plan and files it showed."""

    messages: Callable[[list[str]], list]
    plan: Plan
    shown: dict[str, str]

    @classmethod
    def of(cls, messages: Callable[[list[str]], list], plan: Plan,
           shown: dict[str, str]) -> Start:
        return cls(messages, copy.deepcopy(plan), dict(shown))


@dataclass
class Files:
    """The turn's file bookkeeping, shared with the context-first node (updated in place)."""

    original: dict[str, str]
    existed: set[str]
    shown: dict[str, str]
    changed: list[str]


@dataclass
class Outcome:
    kept: bool
    tokens: int
    calls: int


def sample_from_start(node, start: Start, files: Files, request: str, missed: list[str],
                      before: dict[str, str], command: str | None,
                      tokens_left: Callable[[int], bool]) -> Outcome:
    """Up to FRESH_SAMPLES answers to the first prompt, with the parts of the request the
    first edit missed pointed out (`missed`), each written over the files as they were
    before the turn and checked; the first that passes every check stays in the workspace
    (kept=True). `node` is the ContextFirst node (its model, spec, writes and test runs);
    `tokens_left(spent)` says whether the budget allows another call."""
    tokens = calls = 0
    messages = start.messages(missed)
    for _ in range(FRESH_SAMPLES):
        if not tokens_left(tokens):
            break
        try:
            reply = ask_model(node.llm, messages, stage=node.spec.name, bus=node.bus,
                              max_tokens=node.prompt.max_tokens,
                              temperature=SAMPLE_TEMPERATURE)
        except LLMError:
            break
        tokens += reply.usage.total_tokens
        calls += 1
        plan = copy.deepcopy(start.plan)
        changes, _ = files_from_reply(reply.text, plan, dict(start.shown), request)
        changes = {p: t for p, t in changes.items() if start.shown.get(p) != t}
        if not changes:
            continue
        # Back to the start, then this sample: each is judged as a whole edit.
        restore_files(node.box, {}, files.original, files.existed, files.shown, files.changed)
        written, _ = node.write_files(changes, plan)
        for path in written:
            files.shown[path] = changes[path]
            if path not in files.changed:
                files.changed.append(path)
        if written and _passes(node, request, before, command):
            return Outcome(True, tokens, calls)
    return Outcome(False, tokens, calls)


def _passes(node, request: str, before: dict[str, str], command: str | None) -> bool:
    paths = node.box.workspace.walk_files()
    checked = node.run_tests(command)  # the tests, and the lint of what changed
    if checked is not None and not checked[0]:
        return False
    after = node.project_texts(paths)
    if unmet_parts(request, before, after):
        return False
    return not failed_examples(node.box, before, after)
