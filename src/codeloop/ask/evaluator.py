"""evaluator: the run scores itself on five metrics, and checks its citations (grounding).

Each metric is 0-100 points; the overall score is their weighted mean (weights sum to 100):
task completion 35, reasoning quality 25, tool effectiveness 15, reflection quality 10,
output quality 15. The seed's exact rules were not available; these are ours, each point
with a reason in `why`:

task_completion: 0 without output. 40 for a complete, non-empty output, plus 60 x coverage:
  analyze_repo: the share of the five report sections (Purpose, Structure, Dependencies,
  Architecture, Entry points) present as headings; answer_question with a repository: 1 if
  it cites a `file:line`, 0.5 if it only names a repository file, else 0; generate_content:
  words / 40, at most 1; general: 1.
reasoning_quality: the reasoner's latest steps: 15 per step, at most 4 (60); +20 when the
  model wrote them (not the fallback); +20 when specific: with a repository, a step names a
  repository file or a symbol of the code read (snake_case or CamelCase, so an English word
  that names a function does not count); without one, the steps average 5+ words.
tool_effectiveness: no repository, or a general question: 100 (no tool was needed, none was
  wasted). Otherwise 0
  without tool calls, else 50 x (calls that succeeded with a non-empty result / calls) +
  50 x (expected tools called / expected tools); expected: the four tools for analyze_repo
  and generate_content, retrieve_chunks for a question (read_source_files, retrieval off).
reflection_quality: 0 without a reflection note; 40 for one or more; +30 when every note
  gives a reason; +30 when the last decision is `generate` and not forced by the cap.
output_quality: 0 without output. 40 when the length is in the type's band (LENGTH_BANDS);
  +30 for its form: analyze_repo 3+ Markdown headings, answer_question a name from the code
  in backticks, generate_content 2+ paragraphs, general a finished last sentence (or an
  `Answer:` line); +30 when it holds no refusal or placeholder (REFUSALS).

Grounding (grounding.py) is reported beside the score, never folded into it.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.ask.context import AskContext
from codeloop.ask.grounding import check_grounding, find_citations, resolve_path
from codeloop.ask.report import SECTIONS
from codeloop.ask.state import AskState, latest_steps
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord

WEIGHTS = {"task_completion": 35, "reasoning_quality": 25, "tool_effectiveness": 15,
           "reflection_quality": 10, "output_quality": 15}
LENGTH_BANDS = {"analyze_repo": (400, 20000), "answer_question": (40, 3000),
                "generate_content": (200, 3000), "general": (1, 3000)}
REFUSALS = ("todo", "lorem ipsum", "as an ai", "i cannot", "i can't", "i'm sorry",
            "[insert", "placeholder")
EXPECTED_TOOLS = {"analyze_repo": {"analyze_directory_structure", "read_source_files",
                                   "extract_dependencies", "generate_architecture_map"}}
EXPECTED_TOOLS["generate_content"] = EXPECTED_TOOLS["analyze_repo"]
_WORD = re.compile(r"\S+")
_IDENTIFIER = re.compile(r"\w*(_\w|[a-z][A-Z])\w*")  # snake_case or camelCase/CamelCase


def evaluate(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    scores = score_run(state, ctx)
    grounding = check_grounding(state["final_output"], ctx.index)
    ctx.debug("evaluator", "result", f"overall {scores['overall']}", scores=scores,
              grounding={k: grounding[k] for k in ("cited", "existing", "grounded", "rate")})
    rate = "n/a" if grounding["rate"] is None else f"{grounding['rate']:.0%}"
    return StageOutput({"evaluation_scores": scores, "grounding": grounding},
                       f"overall {scores['overall']}/100, grounding {rate}")


def score_run(state: AskState, ctx: AskContext) -> dict[str, Any]:
    metrics = {
        "task_completion": task_completion(state, ctx),
        "reasoning_quality": reasoning_quality(state, ctx),
        "tool_effectiveness": tool_effectiveness(state),
        "reflection_quality": reflection_quality(state),
        "output_quality": output_quality(state),
    }
    out = {name: {"score": score, "weight": WEIGHTS[name], "why": why}
           for name, (score, why) in metrics.items()}
    overall = sum(m["score"] * m["weight"] for m in out.values()) / sum(WEIGHTS.values())
    return {"metrics": out, "overall": round(overall, 1)}


Scored = tuple[int, list[str]]


def task_completion(state: AskState, ctx: AskContext) -> Scored:
    text = state["final_output"].strip()
    if not text:
        return 0, ["no output"]
    score, why = (40, ["complete output: 40"]) if state["is_complete"] else (0, ["incomplete"])
    kind = state["task_type"]
    if kind == "analyze_repo":
        present = [s for s in SECTIONS if re.search(rf"^#+\s*{s}\b", text, re.MULTILINE | re.IGNORECASE)]
        coverage = len(present) / len(SECTIONS)
        why.append(f"{len(present)}/{len(SECTIONS)} report sections")
    elif kind == "answer_question" and state["repo"] is not None:
        if find_citations(text):
            coverage = 1.0
            why.append("cites file:line")
        elif ctx.index is not None and _names_a_file(text, ctx):
            coverage = 0.5
            why.append("names a file, no line")
        else:
            coverage = 0.0
            why.append("no file cited")
    elif kind == "generate_content":
        words = len(_WORD.findall(text))
        coverage = min(1.0, words / 40)
        why.append(f"{words} words")
    else:
        coverage = 1.0
        why.append("answered")
    return round(score + 60 * coverage), why


def _names_a_file(text: str, ctx: AskContext) -> bool:
    return any(resolve_path(ctx.index, w) for w in re.findall(r"[\w./-]*\w\.[A-Za-z]{1,8}", text))


def reasoning_quality(state: AskState, ctx: AskContext) -> Scored:
    steps = latest_steps(state["reasoning_steps"])
    if not steps:
        return 0, ["no reasoning steps"]
    score = 15 * min(len(steps), 4)
    why = [f"{len(steps)} steps: {score}"]
    if not state["reasoning_fallback"]:
        score += 20
        why.append("the model's own steps: +20")
    if _specific(steps, state, ctx):
        score += 20
        why.append("specific: +20")
    return score, why


def _specific(steps: list[str], state: AskState, ctx: AskContext) -> bool:
    bodies = [s.split(":", 1)[1] if ":" in s else s for s in steps]
    if state["repo"] is None or ctx.index is None:
        return sum(len(_WORD.findall(b)) for b in bodies) / len(bodies) >= 5
    symbols = {c.get("name", "").split(".")[-1] for c in state["retrieved"]}
    for f in state["code_files"]:
        symbols.update(re.findall(r"^\s*(?:def|class)\s+(\w+)", f["text"], re.MULTILINE))
    # An identifier, not an English word that happens to name a function (`report`, `read`).
    symbols = {s for s in symbols if len(s) > 3 and _IDENTIFIER.fullmatch(s)}
    text = " ".join(bodies)
    words = set(re.findall(r"[\w./-]+", text))
    return bool(symbols & words) or any(resolve_path(ctx.index, w) for w in words if "." in w)


def tool_effectiveness(state: AskState) -> Scored:
    if state["repo"] is None or state["task_type"] == "general":
        return 100, ["no tool needed"]
    uses = state["tool_usage"]
    if not uses:
        return 0, ["no tool was called"]
    useful = sum(1 for u in uses if u["ok"] and u["result_size"] > 2)
    if state["task_type"] == "answer_question":
        expected = {"retrieve_chunks" if state["retrieval"] else "read_source_files"}
    else:
        expected = EXPECTED_TOOLS.get(state["task_type"], set())
    called = {u["tool"] for u in uses}
    share = len(expected & called) / len(expected) if expected else 1.0
    score = round(50 * useful / len(uses) + 50 * share)
    hit = len(expected & called)
    return score, [f"{useful}/{len(uses)} calls useful", f"{hit}/{len(expected)} expected tools"]


def reflection_quality(state: AskState) -> Scored:
    notes = state["reflection_notes"]
    if not notes:
        return 0, ["no reflection"]
    score, why = 40, [f"{len(notes)} reflection note(s): 40"]
    if all(n["reason"].strip() for n in notes):
        score += 30
        why.append("every decision has a reason: +30")
    last = notes[-1]
    if last["decision"] == "generate" and not last["reason"].startswith("the iteration cap"):
        score += 30
        why.append("ended by choice, not by the cap: +30")
    return score, why


def output_quality(state: AskState) -> Scored:
    text = state["final_output"].strip()
    if not text:
        return 0, ["no output"]
    kind = state["task_type"]
    low, high = LENGTH_BANDS[kind]
    score, why = 0, []
    if low <= len(text) <= high:
        score += 40
        why.append(f"length {len(text)} in {low}-{high}: 40")
    else:
        why.append(f"length {len(text)} outside {low}-{high}")
    if _well_formed(kind, text):
        score += 30
        why.append("form: +30")
    lowered = text.lower()
    if not any(r in lowered for r in REFUSALS):
        score += 30
        why.append("no refusal or placeholder: +30")
    return score, why


def _well_formed(kind: str, text: str) -> bool:
    if kind == "analyze_repo":
        return len(re.findall(r"^#{1,6}\s+\S", text, re.MULTILINE)) >= 3
    if kind == "answer_question":
        return re.search(r"`[^`\n]+`", text) is not None
    if kind == "generate_content":
        return len([p for p in re.split(r"\n\s*\n", text) if p.strip()]) >= 2
    return text.rstrip()[-1:] in ".!?)`" or re.search(r"^answer:", text, re.IGNORECASE | re.MULTILINE) is not None
