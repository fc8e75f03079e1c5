"""generator: the answer, by task type.

- analyze_repo: the Markdown report (report.py) with the model's Purpose and Architecture;
  with no model reachable, the template report from the tool data alone;
- answer_question: an answer from the retrieved code, what running the question's call showed
  and the tools' structure facts, citing `file:line` (citing.py: one more round for an answer
  that cites nothing, then a plain "uncited" line);
- generate_content: the text asked for (a post, an email...), fed with the repository's
  facts when a repository was given;
- general: a plain answer (math included).
Every type but analyze_repo needs a model: without one the run stops with one clear line.
"""

from __future__ import annotations

import re

from codeloop.ask.calls import observation_text
from codeloop.ask.citing import finish_answer
from codeloop.ask.context import AskContext, AskError, ask_or_none, prompt
from codeloop.ask.evidence import central, code_evidence, question_extras
from codeloop.ask.report import build_report, readme_head, template_architecture, template_purpose
from codeloop.ask.state import AskState
from codeloop.ask.tools.dependencies import names
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord

_SECTION = re.compile(r"^#{1,3}\s*(purpose|architecture)\s*$", re.IGNORECASE | re.MULTILINE)


def generate(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    kind = state["task_type"]
    if kind == "analyze_repo":
        text, source = _report(state, ctx, usage)
    else:
        text = _ask(state, ctx, usage)
        if text is None:
            raise AskError(f"no model reachable for a {kind} task ({ctx.model_down or 'none'}); "
                           "only repository analysis works without a model")
        source = "model"
    ctx.debug("generator", "result", text[:2000], usage=usage, source=source)
    return StageOutput({"final_output": text, "output_source": source, "is_complete": True},
                       text)


def _report(state: AskState, ctx: AskContext, usage: UsageRecord) -> tuple[str, str]:
    modules = "\n".join(f"- {m['path']}: {', '.join(m['defines'][:5]) or '(no definitions)'}"
                        for m in central(state)[:8]) or "- (no module imports another)"
    sources = "\n".join(f"--- {f['path']}\n{f['text'][:500]}" for f in state["code_files"][:4])
    s = state["repo_structure"]
    reply = ask_or_none(
        ctx, usage, "generator", prompt("analyze_repo"), name=s.get("root", "repository"),
        files=s.get("files", 0),
        extensions=", ".join(f"{k} {v}" for k, v in s.get("by_extension", {}).items()),
        dependencies=", ".join(names(state["dependencies"])[:25]) or "none declared",
        entry_points=", ".join(e["path"] for e in state["architecture"].get(
            "entry_points", [])[:6]) or "none found",
        modules=modules, readme=readme_head(ctx.index), sources=sources)
    if reply is None:
        report = build_report(state, template_purpose(state, ctx.index),
                              template_architecture(state))
        return report, "template"
    purpose, architecture = split_sections(reply.text)
    return build_report(state, purpose or template_purpose(state, ctx.index),
                        architecture or template_architecture(state)), "model"


def split_sections(text: str) -> tuple[str, str]:
    """The model's Purpose and Architecture sections ('' for a missing one)."""
    found: dict[str, str] = {}
    marks = list(_SECTION.finditer(text))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        found[mark.group(1).lower()] = text[mark.end():end].strip()
    if not marks:  # no headings: the whole reply is the purpose
        return text.strip(), ""
    return found.get("purpose", ""), found.get("architecture", "")


def _ask(state: AskState, ctx: AskContext, usage: UsageRecord) -> str | None:
    kind = state["task_type"]
    if kind == "answer_question" and state["repo"] is not None:
        reply = ask_or_none(ctx, usage, "generator", prompt("answer_question"),
                            question=state["task"], extra=question_extras(state),
                            observed=observation_text(state["observation"]),
                            facts=state["facts"],
                            code=code_evidence(state) or "(no matching code was found)")
        if reply is None:
            return None
        return finish_answer(reply.text.strip(), state, ctx, usage)
    elif kind == "generate_content":
        reply = ask_or_none(ctx, usage, "generator", prompt("generate_content"),
                            task=state["task"], facts=_facts(state, ctx))
    else:
        reply = ask_or_none(ctx, usage, "generator", prompt("general"), task=state["task"])
    return reply.text.strip() if reply is not None else None


def _facts(state: AskState, ctx: AskContext) -> str:
    if state["repo"] is None:
        return ""
    facts = []
    purpose = readme_head(ctx.index)
    if purpose:
        facts.append(f"- What it is: {purpose}")
    if state["repo_structure"]:
        facts.append(f"- Size: {state['repo_structure']['files']} files")
    deps = names(state["dependencies"]) if state["dependencies"] else []
    if deps:
        facts.append(f"- Built on: {', '.join(deps[:10])}")
    mods = [m["path"] for m in central(state)[:5]]
    if mods:
        facts.append(f"- Core modules: {', '.join(mods)}")
    return "\n".join(facts)
