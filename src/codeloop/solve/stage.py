"""Solve's part of the stage kit (jobs/stage.py): its context, its node wrapper with the
live view's stage details, the prose-only ask of analysis and planning, and the code ask
of the calls after the draft."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codeloop.jobs.extract import extract_code
from codeloop.jobs.prompts import PromptSpec
from codeloop.jobs.stage import StageContext, StageOutput, as_node
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import Message, Reply
from codeloop.solve.extract import (
    contains_code,
    empty_function,
    strip_code,
    unparsable_definition,
)
from codeloop.solve.naming import renamed_solution
from codeloop.solve.rounds import (
    SAMPLE_BUDGET,
    SAMPLES_PER_ROUND,
    another_sample_in_round,
    edge_round_due,
    samples_in_round,
)
from codeloop.solve.state import SolveState
from codeloop.solve.tasks import Task

PROMPTS = "codeloop.solve"  # the package whose prompts/ folder holds solve's prompts
# A closing fence on its own line: what a reply says after its code block (a demo, an
# explanation) is a third of a sample's tokens and never part of the answer.
BLOCK_END = "\n```\n"


@dataclass(kw_only=True)
class SolveContext(StageContext[Task]):
    """Solve's dependencies and switches, bound to every node."""

    assertions: list[str]
    test_source: str | None = None  # the external test file, narrowed to this task
    plan_in_generation: bool = True  # False: generation gets the plain one-shot prompt
    draft_first: bool = True  # generation drafts first; analysis and planning only if it fails
    crosscheck: bool = False  # untested code: the unused rounds buy samples compared on calls
    samples_per_round: int = SAMPLES_PER_ROUND  # a failing sample may be followed in its round
    sample_budget: float = SAMPLE_BUDGET  # ... while the task spent < this x its draft's tokens
    # Calls made from the examples with an empty or one-item argument (solve/edges.py): code
    # that passes every test and crashes on one gets EDGE_ROUNDS round(s) to fix it.
    edge_calls: list[str] = field(default_factory=list)
    # Calls to compare an independent sample with code that passed its examples only after
    # a revealed failure (solve/vote.py); none: no vote.
    vote_calls: list[str] = field(default_factory=list)
    sandbox_timeout: float = 10.0
    unsafe_no_sandbox: bool = False  # the command's setting, passed down (never re-read)

    def another_sample(self, state: SolveState) -> bool:
        """After a failing sample: the round draws another one (rounds.py)."""
        return another_sample_in_round(state, self.samples_per_round, self.sample_budget)

    def edge_round(self, state: SolveState) -> bool:
        """Code that passes every test but crashes on an edge call: spend a round on it?"""
        return edge_round_due(state, self.sample_budget)


SolveStage = Callable[[SolveState, SolveContext, UsageRecord], StageOutput]


def solve_node(stage: str, fn: SolveStage, ctx: SolveContext
               ) -> Callable[[SolveState], dict[str, Any]]:
    return as_node(stage, fn, ctx, lambda state: _detail(stage, state, ctx))


def ask_prose(ctx: SolveContext, usage: UsageRecord, stage: str, spec: PromptSpec,
              **variables: Any) -> tuple[str, bool]:
    """A no-code answer: a reply with code is asked for once more with the spec's retry
    note; code still left after that is stripped. Returns (text, asked_twice)."""
    messages = spec.messages(**variables)
    text = ctx.ask(usage, stage, messages, spec).text.strip()
    if not contains_code(text):
        return text, False
    retry = [*messages[:-1], Message("user", f"{messages[-1].content}\n\n{spec.retry_note.strip()}")]
    text = ctx.ask(usage, stage, retry, spec).text.strip()
    return (strip_code(text) if contains_code(text) else text), True


def ask_code(ctx: SolveContext, usage: UsageRecord, stage: str, messages: list[Message],
             spec: PromptSpec, *, end_at_block: bool) -> tuple[Reply, str | None]:
    """A reply and the solution in it. `end_at_block`: the model stops at the end of its
    first code block (never for the draft, which stays the one-shot call). The stop also
    matches an opening fence with no language after a line of prose; a reply cut there
    holds no fence and no code, and is asked for once more without the stop."""
    reply = ctx.ask(usage, stage, messages, spec, stop=[BLOCK_END] if end_at_block else None)
    code = solution(reply.text, ctx.task)
    if code is None and end_at_block and "```" not in reply.text \
            and reply.finish_reason != "length":
        reply = ctx.ask(usage, stage, messages, spec)
        code = solution(reply.text, ctx.task)
    return reply, code


def solution(reply: str, task: Task) -> str | None:
    """The code in a reply that defines the task's function; a lone function written under
    another name is renamed to it, and says so in a comment (solve/naming.py). A block
    that parses only without its function's body is given as written (it does not parse)."""
    code = extract_code(reply, task.entry_point)
    if code is not None and empty_function(code, task.entry_point):
        # The function's body may have been dropped to make the block parse: then the
        # block as written, so review reports its syntax error, not an empty function.
        return unparsable_definition(reply, task.entry_point) or code
    if code is not None:
        return code
    renamed = renamed_solution(reply, task.signature_node())
    if renamed is None:
        return None
    return (f"# The model named this function `{renamed.written_as}`; renamed to "
            f"`{task.entry_point}`, the name the task asks for.\n{renamed.code}")


def _detail(stage: str, state: SolveState, ctx: SolveContext) -> str:
    if stage == "refinement":
        if ctx.edge_round(state):
            return (f"round {state['refinement_count'] + 1} of {state['max_refinements']}: "
                    "the code passes its tests and crashes on an edge input")
        if ctx.another_sample(state):
            return (f"round {state['refinement_count']} of {state['max_refinements']}, "
                    f"sample {samples_in_round(state) + 1}")
        return f"round {state['refinement_count'] + 1} of {state['max_refinements']}"
    if stage == "crosscheck":
        samples = state["max_refinements"] - state["refinement_count"]
        return f"no test checks the code: {samples} more sample(s), compared on proposed calls"
    if stage == "vote":
        return (f"passes its examples after a failed draft: an independent sample, compared on "
                f"{len(ctx.vote_calls)} edge calls")
    if stage == "review" and state["refinement_count"]:
        return f"after refinement round {state['refinement_count']}"
    if stage == "generation":
        return "draft from the task alone" if not state["attempts"] and not state["plan"] \
            else "following the plan"
    return state["task_id"]


def clip(text: str, limit: int) -> str:
    """Keep later prompts short: at most `limit` characters, cut at a line end."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[: cut.rfind("\n")] if "\n" in cut else cut
