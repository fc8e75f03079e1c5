"""Questions about structure answered from the tools' data: where a name is defined, which
modules import a name, what the project depends on, what its entry points are. Each fact is
one line with a `path:line` the tools found (ast, the import graph, the manifests), so the model
phrases it instead of recalling it, and the answer can cite it.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.ask.tools.definitions import find_definitions, find_imports, is_aside
from codeloop.ask.tools.walk import RepoIndex

MAX_FACTS = 8
_MANIFESTS = ("pyproject.toml", "setup.cfg", "setup.py", "package.json", "go.mod")
# A location question names what it looks for ("where is X defined", "which file defines X");
# "which function computes..." asks for a name by behaviour: retrieval's job, not this one.
_WHERE = re.compile(r"\b(where|which\s+(?:file|module)|defined|defines|declared|located|"
                    r"lives?)\b", re.IGNORECASE)
_IMPORTS = re.compile(r"\bimports?\s+`?([A-Za-z_][\w.]*)`?", re.IGNORECASE)
_DEPS = re.compile(r"\b(depend\w*|requirements?|requires|install\w*|extras?|optional)\b",
                   re.IGNORECASE)
_ENTRY = re.compile(r"\b(entry[- ]points?|console[- ]scripts?|command[- ]line|cli|scripts?|"
                    r"executables?|commands?)\b", re.IGNORECASE)
_IDENT = re.compile(r"`([A-Za-z_]\w*)`|\b([A-Za-z_]\w*)\b")
_STOP = {"where", "which", "what", "is", "the", "a", "an", "defined", "define", "defines",
         "file", "module", "function", "class", "method", "does", "do", "in", "of", "and",
         "how", "many", "are", "there", "it", "its", "this", "that", "package", "located",
         "implement", "implements", "declared", "lives", "live", "set", "sets", "value",
         "with", "for", "to", "from", "by", "on", "not", "itself", "tests", "find",
         "return", "returns", "raise", "s"}


def structure_facts(question: str, index: RepoIndex | None, dependencies: dict[str, Any],
                    architecture: dict[str, Any]) -> list[str]:
    """The facts the question asks about, each with its `path:line` (at most MAX_FACTS)."""
    if index is None:
        return []
    facts: list[str] = []
    wanted_import = _IMPORTS.search(question)
    if wanted_import and "import" in question.lower():
        facts += import_facts(index, wanted_import.group(1).strip(".`"),
                              own_only=bool(re.search(r"not (?:its |the )?tests", question)))
    elif _WHERE.search(question):
        facts += definition_facts(index, question)
    if _DEPS.search(question) and dependencies:
        facts += dependency_facts(index, dependencies)
    if _ENTRY.search(question) and architecture:
        facts += entry_facts(index, architecture)
    return list(dict.fromkeys(facts))[:MAX_FACTS]


def identifiers(question: str) -> list[str]:
    """Names the question may mean: backticked ones first, then code-looking words."""
    quoted, plain = [], []
    for q, word in _IDENT.findall(question):
        if q:
            quoted.append(q)
        elif word.lower() not in _STOP and (
                "_" in word or re.search(r"[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|^[A-Z_]{3,}$", word)
                or word.islower()):
            plain.append(word)
    return list(dict.fromkeys(quoted + plain))


def definition_facts(index: RepoIndex, question: str, per_name: int = 2) -> list[str]:
    out = []
    for name in identifiers(question)[:6]:
        for hit in find_definitions(index, name, limit=per_name):
            what = {"class": "class", "function": "def", "variable": "assignment"}[hit["kind"]]
            if hit.get("protocol"):
                what = "class, a typing Protocol: the interface, not the implementation"
            out.append(f"`{hit['qualname']}` is defined at {hit['path']}:{hit['line']} "
                       f"({what}{', a test or example' if is_aside(hit['path']) else ''})")
    return out


def import_facts(index: RepoIndex, name: str, own_only: bool = False) -> list[str]:
    hits = find_imports(index, name)
    if own_only:
        hits = [h for h in hits if not is_aside(h["path"])] or hits
    if not hits:
        return [f"no Python file of the repository imports {name} (checked by parsing)"]
    return [f"{h['path']}:{h['line']} `{h['statement']}`"
            + (" (a test or example)" if is_aside(h["path"]) else "") for h in hits]


def dependency_facts(index: RepoIndex, deps: dict[str, Any]) -> list[str]:
    out = []
    for kind in ("runtime", "optional"):
        for entry in deps.get(kind, [])[:6]:
            line = _line_of(index, entry["source"], entry["name"])
            place = f"{entry['source']}:{line}" if line else entry["source"]
            group = f", extra `{entry['group']}`" if kind == "optional" else ""
            # the name alone quoted, as the manifest's line holds it (`express` with
            # "^4.19.2" beside it read `express^4.19.2`, in no line: an ungrounded quote)
            spec = f" {entry['spec']}" if entry["spec"] else ""
            out.append(f"{kind} dependency `{entry['name']}`{spec} "
                       f"declared at {place}{group}")
    if not out:
        read = [rel for rel in index.files if "/" not in rel and (
            rel in _MANIFESTS or (rel.startswith("requirements") and rel.endswith(".txt")))]
        places = [f"{rel}:{_declaration_line(index, rel)}" for rel in read]
        out.append("the project declares no dependencies: none at runtime, none optional "
                   + (f"(read: {', '.join(places)})" if read else "(no manifest was found)"))
    return out


def entry_facts(index: RepoIndex, architecture: dict[str, Any]) -> list[str]:
    out = []
    for entry in architecture.get("entry_points", [])[:4]:
        detail = entry["detail"]
        target = detail.split("=", 1)[1].split("(")[0].strip() if "=" in detail else ""
        func = target.split(":", 1)[1].strip() if ":" in target else ""
        manifest = detail.rsplit("(", 1)[-1].rstrip(")") if "(" in detail else ""
        line = (_line_of(index, manifest, target) or _line_of(
            index, manifest, detail.split("=", 1)[0].strip())) if manifest else 0
        place = f" declared at {manifest}:{line}" if line else ""
        defined = ""
        if func:
            hits = [h for h in find_definitions(index, func, limit=3) if h["top_level"]]
            if hits:
                defined = f"; `{func}` is defined at {hits[0]['path']}:{hits[0]['line']}"
        if entry["kind"] != "script":
            detail = f"{entry['path']} ({detail})"
        out.append(f"{entry['kind']} entry point: {detail}{place}{defined}")
    return out


_DECLARES = ("install_requires", "dependencies", "setup(", "[project]", "[metadata]")


def _declaration_line(index: RepoIndex, rel: str) -> int:
    """Where a manifest declares the package or its requirements (1 when nothing says so):
    the line a "no dependencies" answer can cite."""
    lines = index.lines(rel)
    for word in _DECLARES:
        for number, text in enumerate(lines, start=1):
            if word in text:
                return number
    return 1


def _line_of(index: RepoIndex, rel: str, word: str) -> int:
    """The first line of `rel` that holds `word` (0 when none does)."""
    if not rel or not index.has(rel) or not word:
        return 0
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)
    for number, text in enumerate(index.lines(rel), start=1):
        if pattern.search(text):
            return number
    return 0
