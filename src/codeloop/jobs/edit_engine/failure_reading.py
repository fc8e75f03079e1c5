"""The model's reading of a failure, in prose (prompts/diagnose.yaml), asked by the
context-first edit (jobs/react/context_first.py) and the kit's rounds (rounds.py, for build
and review) after two attempts sent the code back unchanged: the files, the failing test output, the linter's findings for the files to edit
and what the code did in the first failing test (failure_trace.py). The reading goes into
the last attempt's prompt, with the findings and the trace, which it may have misread."""

from __future__ import annotations

from collections.abc import Callable

from codeloop.events import EventBus
from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edit_engine.context_plan import Plan
from codeloop.jobs.edit_engine.direct_files import lint_findings
from codeloop.jobs.edit_engine.failure_trace import failure_trace
from codeloop.jobs.prompts import PromptSpec
from codeloop.jobs.stage import ask_model
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import LLM, LLMError


def with_newline(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"


def read_failure(node, request: str, plan: Plan, shown: dict[str, str],
                 tests: tuple[bool, str], command: str,
                 asking: Callable[[], None]) -> tuple[str, int]:
    """The reading and the tokens it took; ("", 0) when the call fails. `node` is the
    ContextFirst node (its model, spec, sandbox and diagnose prompt); `asking` is called
    just before the model is."""
    trace = failure_trace(node.box, plan.edit)
    asking()
    return failure_reading(node.llm, node.diagnose_prompt, request, plan, shown, tests[1],
                           command, trace, stage=node.spec.name, bus=node.bus)


def failure_reading(llm: LLM, prompt: PromptSpec, request: str, plan: Plan,
                    shown: dict[str, str], output: str, command: str, trace: str, *,
                    stage: str, bus: EventBus | None, usage: UsageRecord | None = None
                    ) -> tuple[str, int]:
    """The model's reading of the failure `output` (with the linter's findings and `trace`,
    what the code did, appended), and the tokens it took; ("", 0) when the call fails."""
    files = [{"path": p, "content": with_newline(shown[p]), "language": language_of(p)}
             for p in plan.spec + plan.edit if p in shown]
    findings = lint_findings(shown, plan.edit)
    messages = prompt.messages(request=request, files=files, tests=output, command=command,
                               findings=findings, trace=trace)
    try:
        reply = ask_model(llm, messages, stage=stage, bus=bus, usage=usage,
                          max_tokens=prompt.max_tokens, temperature=prompt.temperature)
    except LLMError:
        return "", 0
    # As written: a reading that holds code keeps its lines (joined, the 1.5B copied
    # a one-line `def ...: """...""" if ...` that does not parse).
    reading = reply.text.strip()[:1200]
    if findings:  # the next edit sees them too, whatever the reading made of them
        reading += "\nThe linter's findings: " + "; ".join(findings) + "."
    if trace:  # and the values, which the reading may have misread
        reading += "\n" + trace
    return reading, reply.usage.total_tokens
