"""The edit prompt, one for every job: the request, the files (to edit, and the tests as the
specification), the concrete failure now, and the notes of the attempts before. Each round
is a fresh single prompt built here (small models repeat themselves in a long conversation
and fix more from one concrete failure); the agent's direct edit renders the same template.
"""

from __future__ import annotations

from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edit_engine.api import Check, EditTask
from codeloop.jobs.prompts import PromptSpec, load_prompt
from codeloop.jobs.request_files import is_test_path
from codeloop.llm.base import Message

PROMPT = ("codeloop.jobs.edit_engine", "edit")  # the agent's direct edit renders it too
WHOLE_FILE_MAX_LINES = 150  # longer files are edited by SEARCH/REPLACE blocks


def with_newline(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"


def edit_prompt() -> PromptSpec:
    return load_prompt(*PROMPT)


def edit_messages(spec: PromptSpec, task: EditTask, shown: dict[str, str],
                  check: Check | None, attempt: int, problems: list[str], *,
                  unmet: list[str] | None = None, functions_only: bool = False,
                  reading: str = "", checklist: list[str] | None = None) -> list[Message]:
    """The prompt for one round, for every job that edits files (the agent's direct edit,
    build's task agents, review's coder, refiner and request test): `shown` holds the files
    as they are now, `check` the latest verdict (its output is the failure shown),
    `problems` the notes for this round; `reading` and `checklist`: the agent's worked
    reading of a failure and the request's parts still to do."""
    order = task.spec + [p for p in task.edit if p not in task.spec]
    files = [{"path": p, "content": with_newline(shown[p]), "language": language_of(p),
              "test": p in task.spec and is_test_path(p),
              "read_only": p in task.spec and not is_test_path(p)}
             for p in order if p in shown]
    large = [] if task.whole_files else \
        [p for p in task.edit if len(shown.get(p, "").splitlines()) > WHOLE_FILE_MAX_LINES]
    request = task.request + (f"\n\n{task.context}" if task.context else "")
    return spec.messages(request=request, files=files, new_files=task.new,
                         tests=check.output if check else "",
                         passed=bool(check and check.passed),
                         command=check.label if check else "", attempt=attempt,
                         large=large, protect=task.protect_tests, problems=problems,
                         functions_only=functions_only, unmet=unmet or [], reading=reading,
                         checklist=checklist or [])
