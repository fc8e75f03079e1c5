"""reasoner: 3 to 5 steps towards the answer, as schema-constrained JSON.

A small model's JSON can still be useless (too few steps, empty strings) or fail the schema;
then the node falls back to simple steps for the task type and says so in the log and in
`reasoning_fallback` (the reflector may ask once more). Without a reachable model the simple
steps are the plan.
"""

from __future__ import annotations

from codeloop.ask.context import AskContext, ask_or_none, prompt
from codeloop.ask.evidence import short_evidence
from codeloop.ask.state import AskState
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import InvalidStructuredOutput

FALLBACK_STEPS = {
    "analyze_repo": ["Read the directory structure and the declared dependencies",
                     "Map the modules and their imports to find the central files",
                     "Identify the entry points",
                     "Write the report from the tool data"],
    "answer_question": ["Find the code that matches the question",
                        "Read the matching functions and classes",
                        "Answer from that code, citing file:line"],
    "generate_content": ["Collect the facts the text needs",
                         "Choose the tone and length for the audience",
                         "Write the text"],
    "general": ["Restate what is asked", "Work it out step by step", "Give the answer"],
}


def steps_schema(min_steps: int, max_steps: int) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["steps"],
            "properties": {"steps": {"type": "array", "minItems": min_steps,
                                     "maxItems": max_steps,
                                     "items": {"type": "string", "minLength": 3}}}}


def reason(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    spec = prompt("reasoner")
    low, high = int(spec.extra.get("min_steps", 3)), int(spec.extra.get("max_steps", 5))
    why = ""
    try:
        reply = ask_or_none(ctx, usage, "reasoner", spec, schema=steps_schema(low, high),
                            task=state["task"], task_type=state["task_type"],
                            evidence=short_evidence(state), retry=state["retries"] > 0)
        steps = _clean(reply.data["steps"]) if reply is not None else []
        if reply is None:
            why = f"no model reachable ({ctx.model_down})"
        elif len(steps) < low:
            why = f"the model gave {len(steps)} usable steps, fewer than {low}"
    except InvalidStructuredOutput as exc:
        usage.prompt_tokens += exc.usage.prompt_tokens  # the failed attempts cost tokens too
        usage.completion_tokens += exc.usage.completion_tokens
        steps, why = [], f"the model's JSON was not valid: {str(exc).splitlines()[0][:160]}"
    if why:
        steps = FALLBACK_STEPS[state["task_type"]]
        ctx.debug("reasoner", "error", f"fell back to simple steps: {why}", usage=usage)
    else:
        ctx.debug("reasoner", "thinking", "\n".join(steps), usage=usage)
    numbered = [f"Step {i}: {s}" for i, s in enumerate(steps[:high], start=1)]
    shown = "\n".join(numbered) + (f"\n(simple steps: {why})" if why else "")
    return StageOutput({"reasoning_steps": numbered, "reasoning_fallback": bool(why)}, shown)


def _clean(steps: list[str]) -> list[str]:
    out = []
    for step in steps:
        text = " ".join(str(step).split())
        if len(text) >= 3 and text.lower() not in {s.lower() for s in out}:
            out.append(text[:300])
    return out
