"""evaluator: the run scores itself on five metrics, and checks its citations (grounding).

Each metric is 0-100 points; the overall score is their weighted mean (weights sum to 100):
task completion 35, reasoning quality 25, tool effectiveness 15, reflection quality 10,
output quality 15. The point rules are the seed's (TooPositive/Simple-RAG,
src/evaluation/metrics.py), ported rule for rule; each point is given with its reason in
`why`. Where the seed's state differs from ours: its `repo_structure` and `dependencies`
start as None, ours as {} (so "gathered" is: not empty); its reflection notes are strings,
ours records (the count is what matters); `final_output` is never None here.

task_completion: 50 for an output; 30 when the run is complete; 20 when it ended before
  `max_iterations` (10 when it used exactly that many).
reasoning_quality: 40 for any reasoning step (every step in the state, planning steps
  included); +40 for 5+ steps, +30 for 3-4, +20 for 1-2; +20 for any reflection note.
tool_effectiveness: 50 for any tool call; +30 for 3+ calls, +20 for 2, +10 for 1; +20 when
  both the directory structure and the dependencies were gathered, +10 for one of them.
reflection_quality: 30 for any reflection note; +30 for 3+ notes, +20 for 2, +15 for 1;
  +40 when the output has a "How self-reflection improved" (or "Self-reflection impact")
  section, else +20 when it has notes and the output says addressing/improved/enhanced/
  added/included.
output_quality, by the output's kind (`output_kind`: "linkedin" or "post" in the task ->
  linkedin_post; a code keyword (where, which file/class/function, show me, find, locate,
  how is, used in) -> code_question; analyze_repo -> repository_analysis; else general):
  code_question: 10 each for a file path (".py", "/" or "file:"), line numbers ("line" and
    a digit), code ("import", "from", "def", "class" or a backtick), an identifier (an
    upper-case letter or "()"); 15/12/8 for 500+/200+/100+ characters; 15 for context (200+
    characters and "used in", "function" or "purpose"); the reflection section's 0-30
    (15 for the section, +15 for 3+ critique words, +10 for 1-2).
  linkedin_post: 10 each for an opening word (excited/thrilled/introducing/proud in the
    first 200 characters), a technical word (features/stack/technical/capabilities), a
    closing word (thank/check out/available/repo in the last 200); hashtags ('#') 10/7/4
    for 5+/3+/1+; emojis of the seed's seven 10/5 for 2+/1; the seed's technical terms
    (langgraph, langchain, azure, openai, gpt, rag, agent) 20/15/10 for 4+/2+/1; 15 for a
    number; 15 for "p.s." or "self-reflection".
  repository_analysis: [evidence: ...] tags 30/25/15/5 for 15+/10+/5+/1+, -20 for none;
    5 per section word (overview, architecture, dependencies, structure, capabilities);
    10 for a `:N` line reference with a `Symbol` or `function()` in backticks, 7 for both
    kinds without, 4 for one; 10 for test citations with '::' and a test file, 4 for a test
    file; 5 for '==' or '~=' versions; 5 for a command word (pytest, coverage, find tests,
    command); -15/-10/-5 for 5+/3+/1+ vague words (likely, suggests, appears to, may,
    probably, seems to, possibly); 7 for Markdown headings, 8 for lists (or 10+ lines);
    the reflection section's points, at most 10; never below 0.
  general: 40 for an output; 30 for 100-2000 characters, else 20 for 50+; 20 for structure
    (2+ line breaks or a '.'); 10 for the reflection section.
  Every metric is capped at 100.

Grounding (grounding.py) is reported beside the score, never folded into it.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.ask.context import AskContext
from codeloop.ask.grounding import check_grounding
from codeloop.ask.state import AskState
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord

WEIGHTS = {"task_completion": 35, "reasoning_quality": 25, "tool_effectiveness": 15,
           "reflection_quality": 10, "output_quality": 15}
CODE_KEYWORDS = ("where", "which file", "which class", "which function", "show me", "find",
                 "locate", "how is", "used in")
CRITIQUE_TERMS = ("addressing", "critique", "mentioned", "noted", "responding to",
                  "improving", "enhancement", "added", "included")
IMPLICIT_ADDRESSING = ("addressing", "improved", "enhanced", "added", "included")
EMOJIS = ("\N{ROBOT FACE}", "\N{DIRECT HIT}", "\N{SPARKLES}", "\N{ROCKET}",
          "\N{ELECTRIC LIGHT BULB}", "\N{BAR CHART}", "\N{LEFT-POINTING MAGNIFYING GLASS}")
TECH_TERMS = ("langgraph", "langchain", "azure", "openai", "gpt", "rag", "agent")
REPORT_SECTIONS = ("overview", "architecture", "dependencies", "structure", "capabilities")
VAGUE_TERMS = ("likely", "suggests", "appears to", "may", "probably", "seems to", "possibly")


def evaluate(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    scores = score_run(state)
    grounding = check_grounding(state["final_output"], ctx.index)
    ctx.debug("evaluator", "result", f"overall {scores['overall']}", scores=scores,
              grounding={k: grounding[k] for k in ("cited", "existing", "grounded", "rate")})
    rate = "n/a" if grounding["rate"] is None else f"{grounding['rate']:.0%}"
    return StageOutput({"evaluation_scores": scores, "grounding": grounding},
                       f"overall {scores['overall']}/100, grounding {rate}")


def score_run(state: AskState) -> dict[str, Any]:
    metrics = {
        "task_completion": task_completion(state),
        "reasoning_quality": reasoning_quality(state),
        "tool_effectiveness": tool_effectiveness(state),
        "reflection_quality": reflection_quality(state),
        "output_quality": output_quality(state),
    }
    out = {name: {"score": score, "weight": WEIGHTS[name], "why": why}
           for name, (score, why) in metrics.items()}
    overall = sum(m["score"] * m["weight"] for m in out.values()) / sum(WEIGHTS.values())
    return {"metrics": out, "overall": round(overall, 1)}


Scored = tuple[int, list[str]]


def _tiers(value: int, tiers: tuple[tuple[int, int], ...]) -> int:
    """The points of the first (at least, points) tier `value` reaches, else 0."""
    return next((points for least, points in tiers if value >= least), 0)


def _counted(count: int, base: int, noun: str, tiers: tuple[tuple[int, int], ...]) -> Scored:
    """`base` points for any at all, plus the first tier the count reaches, with the reasons
    ("3 reasoning steps: 40", "3+ reasoning steps: +30")."""
    if count <= 0:
        return 0, []
    least, points = next(((least, points) for least, points in tiers if count >= least),
                         (0, 0))
    return base + points, [f"{count} {noun}: {base}", f"{least}+ {noun}: +{points}"]


def task_completion(state: AskState) -> Scored:
    score, why = 0, []
    if state["final_output"]:
        score += 50
        why.append("an output: 50")
    if state["is_complete"]:
        score += 30
        why.append("complete: +30")
    used, cap = state["iteration_count"], state["max_iterations"]
    if used < cap:
        score += 20
        why.append(f"{used} of {cap} iterations: +20")
    elif used == cap:
        score += 10
        why.append(f"all {cap} iterations: +10")
    return min(score, 100), why


def reasoning_quality(state: AskState) -> Scored:
    score, why = _counted(len(state["reasoning_steps"]), 40, "reasoning steps",
                          ((5, 40), (3, 30), (1, 20)))
    if state["reflection_notes"]:
        score += 20
        why.append("reflected: +20")
    return min(score, 100), why or ["no reasoning steps"]


def tool_effectiveness(state: AskState) -> Scored:
    score, why = _counted(len(state["tool_usage"]), 50, "tool calls",
                          ((3, 30), (2, 20), (1, 10)))
    gathered = [name for name in ("repo_structure", "dependencies") if state[name]]
    if len(gathered) == 2:
        score += 20
        why.append("structure and dependencies gathered: +20")
    elif gathered:
        score += 10
        why.append(f"{gathered[0]} gathered: +10")
    return min(score, 100), why or ["no tool was called"]


def reflection_section(output: str) -> int:
    """The seed's check that reflection reached the output: 0 without a "How
    self-reflection improved" / "Self-reflection impact" section, else 15 for it, +15 for
    3+ critique words (+10 for 1-2), at most 30."""
    low = output.lower()
    if "how self-reflection improved" not in low and "self-reflection impact" not in low:
        return 0
    found = sum(1 for term in CRITIQUE_TERMS if term in low)
    return min(15 + _tiers(found, ((3, 15), (1, 10))), 30)


def reflection_quality(state: AskState) -> Scored:
    notes = len(state["reflection_notes"])
    score, why = 0, []
    if notes > 0:
        score += 30
        why.append(f"{notes} reflection note(s): 30")
    tier = _tiers(notes, ((3, 30), (2, 20), (1, 15)))
    if tier:
        score += tier
        why.append(f"depth: +{tier}")
    output = state["final_output"]
    if reflection_section(output):
        score += 40
        why.append("a self-reflection section in the output: +40")
    elif notes > 0 and any(t in output.lower() for t in IMPLICIT_ADDRESSING):
        score += 20
        why.append("the output says what it addressed: +20")
    return min(score, 100), why or ["no reflection"]


def output_kind(state: AskState) -> str:
    task = state["task"].lower()
    if "linkedin" in task or "post" in task:
        return "linkedin_post"
    if any(kw in task for kw in CODE_KEYWORDS):
        return "code_question"
    if state["task_type"] == "analyze_repo":
        return "repository_analysis"
    return "general"


def output_quality(state: AskState) -> Scored:
    output = state["final_output"]
    if not output:
        return 0, ["no output"]
    kind = output_kind(state)
    rules = {"code_question": _code_question, "linkedin_post": _linkedin_post,
             "repository_analysis": _repository_analysis, "general": _general}[kind]
    why: list[str] = [f"judged as {kind}"]
    score = rules(output, why)
    return max(0, min(score, 100)), why


def _add(why: list[str], points: int, reason: str) -> int:
    if points:
        why.append(f"{reason}: {points:+d}")
    return points


def _code_question(output: str, why: list[str]) -> int:
    low = output.lower()
    score = _add(why, 10 * (".py" in output or "/" in output or "file:" in low), "a file path")
    score += _add(why, 10 * ("line" in low and any(c.isdigit() for c in output)),
                  "line numbers")
    score += _add(why, 10 * (any(t in low for t in ("import", "from", "def", "class"))
                             or "`" in output), "code")
    score += _add(why, 10 * (any(c.isupper() for c in output) or "()" in output),
                  "identifiers")
    score += _add(why, _tiers(len(output), ((500, 15), (200, 12), (100, 8))),
                  f"{len(output)} characters")
    context = len(output) >= 200 and any(t in low for t in ("used in", "function", "purpose"))
    score += _add(why, 15 * context, "context")
    return score + _add(why, reflection_section(output), "self-reflection section")


def _linkedin_post(output: str, why: list[str]) -> int:
    low = output.lower()
    score = _add(why, 10 * any(w in low[:200] for w in ("excited", "thrilled", "introducing",
                                                        "proud")), "an opening")
    score += _add(why, 10 * any(w in low for w in ("features", "stack", "technical",
                                                    "capabilities")), "a technical section")
    score += _add(why, 10 * any(w in low[-200:] for w in ("thank", "check out", "available",
                                                         "repo")), "a closing")
    score += _add(why, _tiers(output.count("#"), ((5, 10), (3, 7), (1, 4))), "hashtags")
    score += _add(why, _tiers(sum(1 for e in EMOJIS if e in output), ((2, 10), (1, 5))),
                  "emojis")
    score += _add(why, _tiers(sum(1 for t in TECH_TERMS if t in low),
                              ((4, 20), (2, 15), (1, 10))), "technical terms")
    score += _add(why, 15 * any(c.isdigit() for c in output), "numbers")
    return score + _add(why, 15 * ("p.s." in low or "self-reflection" in low),
                        "a self-reflection note")


def _repository_analysis(output: str, why: list[str]) -> int:
    low = output.lower()
    tags = len(re.findall(r"\[evidence:\s*[^\]]+\]", output))
    score = _add(why, _tiers(tags, ((15, 30), (10, 25), (5, 15), (1, 5))) if tags else -20,
                 f"{tags} evidence tags")
    score += _add(why, 5 * sum(1 for s in REPORT_SECTIONS if s in low), "section words")
    lines = bool(re.search(r":(\d+)(?:-\d+)?", output))
    classes = bool(re.search(r"`[A-Z][a-zA-Z]+(?:Class|Node|Manager|Runner|Handler)?`", output))
    functions = bool(re.search(r"`[a-z_]+\(\)`", output))
    symbols = 10 if lines and (classes or functions) else 7 if classes and functions else \
        4 if classes or functions else 0
    score += _add(why, symbols, "code symbols" + (" with line numbers" if symbols == 10
                                                  else ""))
    test_files = "tests/" in low or "test_" in low
    score += _add(why, 10 if "::" in output and "test" in low and test_files else
                  4 if test_files else 0, "test citations")
    score += _add(why, 5 * ("==" in output or "~=" in output), "dependency versions")
    score += _add(why, 5 * any(k in low for k in ("pytest", "coverage", "find tests",
                                                  "command")), "command outputs")
    vague = sum(1 for t in VAGUE_TERMS if t in low)
    score += _add(why, -_tiers(vague, ((5, 15), (3, 10), (1, 5))), f"{vague} vague words")
    score += _add(why, 7 * ("#" in output[:100] or "##" in output), "Markdown headings")
    score += _add(why, 8 * ("- " in output or "* " in output or output.count("\n") >= 10),
                  "lists")
    return score + _add(why, min(reflection_section(output), 10), "self-reflection section")


def _general(output: str, why: list[str]) -> int:
    score = _add(why, 40, "an output")
    length = len(output)
    score += _add(why, 30 if 100 <= length <= 2000 else 20 if length >= 50 else 0,
                  f"{length} characters")
    score += _add(why, 20 * (output.count("\n") >= 2 or "." in output), "structure")
    return score + _add(why, 10 * bool(reflection_section(output)), "self-reflection section")
