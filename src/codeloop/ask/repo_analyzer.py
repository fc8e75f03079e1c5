"""repo_analyzer: runs the repository tools the planner's action calls for, and logs every
call in `tool_usage` (arguments, result size, a one-line summary) and as a ToolCall event.

- analyze_repository: analyze_directory_structure, extract_dependencies,
  generate_architecture_map, read_source_files (the most central files first);
- retrieve (a question): the architecture map, then BM25 chunks for the question (or, with
  retrieval off, the central files as the seed read them); the dependencies or the tree too
  when the question is about them; a call of the repository's code in the question is run in
  the sandbox (`run_call`, calls.py) and the definition that ran joins the chunks; structure
  questions get the tools' facts with their path:line (`structure_facts`, facts.py);
- read_files: the files the reasoning named that are not read yet.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from codeloop.ask.calls import definition_chunk, find_call, observe
from codeloop.ask.context import AskContext
from codeloop.ask.facts import structure_facts
from codeloop.ask.grounding import resolve_path
from codeloop.ask.state import AskState, ToolUse
from codeloop.ask.tools.architecture import generate_architecture_map
from codeloop.ask.tools.dependencies import extract_dependencies, names
from codeloop.ask.tools.sources import read_source_files
from codeloop.ask.tools.structure import analyze_directory_structure
from codeloop.events import ToolCall
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord

QUESTION_FILES = 6  # central files a question gets when retrieval is off
READ_MORE = 4  # files one `continue` reads at most
_DEPS_WORDS = re.compile(r"\b(depend\w*|requirement\w*|packages?|librar\w+|install\w*|"
                         r"extras?|optional)\b", re.IGNORECASE)
_TREE_WORDS = re.compile(r"\b(structure|director\w*|folders?|layout|tree)\b", re.IGNORECASE)
_EMPTY = {"read_source_files": list, "retrieve_chunks": list}  # what a failed tool leaves
_PATHISH = re.compile(r"[\w./-]*\w\.[A-Za-z0-9]{1,8}\b")


def analyze(state: AskState, ctx: AskContext, usage: UsageRecord) -> StageOutput:
    if ctx.index is None:  # the planner never sends a run without a repository here
        return StageOutput({}, "no repository", ok=False)
    uses: list[ToolUse] = []
    update: dict[str, Any] = {"tool_usage": uses}
    action = state["next_action"]
    if action == "analyze_repository":
        _full_analysis(ctx, update, uses)
    elif action == "retrieve":
        _for_question(state, ctx, update, uses)
    else:
        _read_named(state, ctx, update, uses)
    shown = "; ".join(f"{u['tool']}: {u['summary']}" for u in uses) or "nothing new to read"
    return StageOutput(update, shown, ok=all(u["ok"] for u in uses))


def _full_analysis(ctx: AskContext, update: dict[str, Any], uses: list[ToolUse]) -> None:
    index, path = ctx.index, str(ctx.index.root)
    update["repo_structure"] = _call(ctx, uses, "analyze_directory_structure",
                                     {"path": path, "max_depth": ctx.max_depth},
                                     lambda: analyze_directory_structure(index, ctx.max_depth),
                                     lambda r: f"{r['files']} files in {r['dirs']} directories")
    update["dependencies"] = _call(ctx, uses, "extract_dependencies", {"path": path},
                                   lambda: extract_dependencies(index), _deps_summary)
    arch = _call(ctx, uses, "generate_architecture_map", {"path": path},
                 lambda: generate_architecture_map(index), _arch_summary)
    update["architecture"] = arch
    update["code_files"] = _call(ctx, uses, "read_source_files",
                                 {"path": path, "max_files": ctx.max_files},
                                 lambda: read_source_files(index, ctx.max_files, architecture=arch),
                                 lambda r: f"{len(r)} files, most central first")


def _for_question(state: AskState, ctx: AskContext, update: dict[str, Any],
                  uses: list[ToolUse]) -> None:
    index, path, question = ctx.index, str(ctx.index.root), state["task"]
    arch = _call(ctx, uses, "generate_architecture_map", {"path": path},
                 lambda: generate_architecture_map(index), _arch_summary)
    update["architecture"] = arch
    if _DEPS_WORDS.search(question):
        update["dependencies"] = _call(ctx, uses, "extract_dependencies", {"path": path},
                                       lambda: extract_dependencies(index), _deps_summary)
    if _TREE_WORDS.search(question):
        update["repo_structure"] = _call(
            ctx, uses, "analyze_directory_structure", {"path": path, "max_depth": ctx.max_depth},
            lambda: analyze_directory_structure(index, ctx.max_depth),
            lambda r: f"{r['files']} files in {r['dirs']} directories")
    if state["retrieval"]:
        update["retrieved"] = _call(
            ctx, uses, "retrieve_chunks", {"query": question, "k": ctx.top_k},
            lambda: ctx.search().search(question, ctx.top_k),
            lambda r: ", ".join(f"{c['path']}:{c['start']}" for c in r) or "no match")
    else:
        update["code_files"] = _call(
            ctx, uses, "read_source_files", {"path": path, "max_files": QUESTION_FILES},
            lambda: read_source_files(index, QUESTION_FILES, architecture=arch),
            lambda r: f"{len(r)} files, most central first")
    call = find_call(question, index) if ctx.run_calls else None
    if call is not None:
        obs = _call(ctx, uses, "run_call", {"call": call["expr"][:200]},
                    lambda: observe(call, index), _observation_summary)
        if obs:
            update["observation"] = obs
            chunk = definition_chunk(index, obs)
            update["retrieved"] = [chunk, *[c for c in update.get("retrieved", [])
                                           if (c["path"], c["start"]) != (chunk["path"],
                                                                          chunk["start"])]]
    facts = structure_facts(question, index, update.get("dependencies") or {}, arch)
    if facts:  # logged as a tool call only when the tools knew something
        update["facts"] = _call(ctx, uses, "structure_facts", {"question": question[:200]},
                                lambda: facts, lambda r: f"{len(r)} facts with their path:line")


def _read_named(state: AskState, ctx: AskContext, update: dict[str, Any],
                uses: list[ToolUse]) -> None:
    wanted = unread_mentions(state, ctx)[:READ_MORE]
    if not wanted:
        return
    update["code_files"] = _call(
        ctx, uses, "read_source_files", {"path": str(ctx.index.root), "files": wanted},
        lambda: read_source_files(ctx.index, len(wanted), architecture=state["architecture"],
                                  only=wanted),
        lambda r: ", ".join(f["path"] for f in r))


def unread_mentions(state: AskState, ctx: AskContext) -> list[str]:
    """Repository files the task or the reasoning steps name that no tool has read yet."""
    if ctx.index is None:
        return []
    read = {f["path"] for f in state["code_files"]} | {c["path"] for c in state["retrieved"]}
    text = "\n".join([state["task"], *state["reasoning_steps"]])
    found: list[str] = []
    for candidate in _PATHISH.findall(text):
        rel = resolve_path(ctx.index, candidate)
        if rel is not None and rel not in read and rel not in found:
            found.append(rel)
    return found


def _call(ctx: AskContext, uses: list[ToolUse], tool: str, arguments: dict[str, Any],
          run: Callable[[], Any], summarise: Callable[[Any], str]) -> Any:
    started = time.perf_counter()
    try:
        result, ok = run(), True
        summary = summarise(result)
    except (OSError, ValueError) as exc:  # a tool's failure is data for the run, not a crash
        result, ok, summary = _EMPTY.get(tool, dict)(), False, f"failed: {exc}"
    seconds = round(time.perf_counter() - started, 3)
    size = len(json.dumps(result, default=str))
    uses.append(ToolUse(tool=tool, arguments=arguments, ok=ok, result_size=size,
                        summary=summary, seconds=seconds))
    ctx.bus.emit(ToolCall(tool=tool, arguments=arguments, result=summary, ok=ok,
                          seconds=seconds))
    ctx.debug("repo_analyzer", "tool_call", f"{tool}: {summary}", result_size=size)
    return result


def _observation_summary(obs: dict[str, Any]) -> str:
    if not obs:
        return "no call of the repository's code in the question"
    shown = {"returned": obs.get("value", ""), "raised": obs.get("type", ""),
             "missing": f"missing {obs.get('name', '')}"}.get(obs["status"], obs["status"])
    return f"{obs['expr'][:60]} -> {obs['status']}: {shown[:80]}"


def _deps_summary(deps: dict[str, Any]) -> str:
    runtime = names(deps, "runtime")
    return (f"{len(runtime)} runtime, {len(names(deps, 'dev'))} dev, "
            f"{len(names(deps, 'optional'))} optional from {', '.join(deps['sources']) or 'none'}")


def _arch_summary(arch: dict[str, Any]) -> str:
    return (f"{len(arch['modules'])} modules, {arch['edges']} internal imports, "
            f"{len(arch['entry_points'])} entry points")
