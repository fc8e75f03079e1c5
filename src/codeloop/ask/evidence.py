"""What the tools found, as prompt text: short, and with real line numbers so the model can
cite `file:line` that exist. Budgets are in characters (about four to a token): on the 1.5B
model a 2k-token prompt already costs ~16 s of prefill.
"""

from __future__ import annotations

from typing import Any

from codeloop.ask.state import AskState
from codeloop.ask.tools.dependencies import names

CODE_BUDGET = 5200  # the question prompt's code, all chunks or files together
SHORT_LIST = 12


def numbered(text: str, start: int, max_lines: int = 60) -> str:
    lines = text.splitlines()[:max_lines]
    return "\n".join(f"{start + i}| {line}" for i, line in enumerate(lines))


def code_evidence(state: AskState, budget: int = CODE_BUDGET) -> str:
    """The retrieved chunks (best first) and the files read, each headed by `path:start-end`,
    lines numbered, until the budget is spent."""
    blocks: list[str] = []
    used = 0
    pieces = [(c["path"], c["start"], c["text"], c.get("name", "")) for c in state["retrieved"]]
    pieces += [(f["path"], 1, f["text"], "") for f in state["code_files"]]
    seen: set[tuple[str, int]] = set()
    for path, start, text, name in pieces:
        if (path, start) in seen:
            continue
        seen.add((path, start))
        body = numbered(text, start)
        end = start + body.count("\n")
        block = f"--- {path}:{start}-{end}{f' ({name})' if name else ''}\n{body}"
        if used + len(block) > budget:
            room = budget - used
            if room < 400:
                break
            block = block[:room].rsplit("\n", 1)[0]
        blocks.append(block)
        used += len(block)
    return "\n".join(blocks)


def short_evidence(state: AskState) -> str:
    """A few lines for the reasoner: what the tools found, not the code itself."""
    lines = []
    if state["repo_structure"]:
        s = state["repo_structure"]
        lines.append(f"- {s['files']} files in {s['dirs']} directories")
    if state["dependencies"]:
        lines.append("- runtime dependencies: " + (", ".join(
            names(state["dependencies"])[:SHORT_LIST]) or "none declared"))
    if state["architecture"]:
        lines.append("- most imported: " + ", ".join(m["path"] for m in central(state)[:5]))
        entry = [e["path"] for e in state["architecture"]["entry_points"]][:5]
        if entry:
            lines.append("- entry points: " + ", ".join(entry))
    if state["retrieved"]:
        lines.append("- matching code: " + ", ".join(
            f"{c['path']}:{c['start']} ({c['name']})" for c in state["retrieved"][:5]))
    elif state["code_files"]:
        lines.append("- files read: " + ", ".join(f["path"] for f in state["code_files"][:6]))
    return "\n".join(lines)


def central(state: AskState) -> list[dict[str, Any]]:
    modules = state["architecture"].get("modules", []) if state["architecture"] else []
    return sorted((m for m in modules if m["fan_in"]), key=lambda m: (-m["fan_in"], m["path"]))


def question_extras(state: AskState) -> str:
    """Dependencies and the tree, when the question asked for them (repo_analyzer ran them)."""
    parts = []
    deps = state["dependencies"]
    if deps:
        parts.append("Declared dependencies (from " + (", ".join(deps["sources"]) or "no "
                     "manifest") + "):")
        for kind in ("runtime", "dev", "optional"):
            found = names(deps, kind)
            if found:
                parts.append(f"- {kind}: {', '.join(found[:40])}")
    if state["repo_structure"]:
        parts.append("Directory tree:\n" + state["repo_structure"]["tree"][:1500])
    if "import" in state["task"].lower():
        parts.append(import_evidence(state))
    return "\n".join(p for p in parts if p)


def import_evidence(state: AskState, limit: int = 15) -> str:
    """For "which module imports X": the modules whose imports name a word of the question,
    straight from the architecture map."""
    import re

    words = {w.lower() for w in re.findall(r"[A-Za-z_][\w.]{2,}", state["task"])}
    words -= {"which", "what", "module", "modules", "file", "files", "imports", "import",
              "does", "the", "uses", "use"}
    hits = []
    for module in state["architecture"].get("modules", []) if state["architecture"] else []:
        named = [n for n in [*module["external"], *module["imports"]]
                 if any(w == n.lower() or w in n.lower().replace("/", ".").split(".")
                        for w in words)]
        if named:
            hits.append(f"- {module['path']} imports {', '.join(named[:4])}")
    return "Imports found by parsing:\n" + "\n".join(hits[:limit]) if hits else ""
