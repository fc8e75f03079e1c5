"""The repository report in Markdown, built from the tool data.

Structure, dependencies, the module table and the entry points are always the tools' own
data (never model text, so never invented). Purpose and Architecture prose come from the
model when one answered; without a model (the seed's fallback) Purpose is the README's first
paragraph or the main package's docstring, and Architecture is said from the import map.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.ask.evidence import central
from codeloop.ask.state import AskState
from codeloop.ask.tools.walk import RepoIndex

SECTIONS = ("Purpose", "Structure", "Dependencies", "Architecture", "Entry points")
NO_MANIFEST = ("No dependency manifest found (requirements*.txt, pyproject.toml, setup.cfg, "
               "package.json, go.mod).")
NO_ROOT_MANIFEST = "No dependency manifest at the repository root."
_README = ("README.md", "README.rst", "README.txt", "README")


def readme_head(index: RepoIndex | None, limit: int = 600) -> str:
    """The README's first paragraph of prose (headings, badges and blank lines skipped)."""
    if index is None:
        return ""
    for name in _README:
        if index.has(name):
            for block in re.split(r"\n\s*\n", index.text(name)):
                text = block.strip()
                if text and not text.startswith(("#", "[!", "![", "<", "=", "-", "```")):
                    return " ".join(text.split())[:limit]
    return ""


def package_docstring(state: AskState, index: RepoIndex | None) -> str:
    """The docstring of the most central package `__init__.py` that has one."""
    if index is None:
        return ""
    inits = [m["path"] for m in central(state) if m["path"].endswith("__init__.py")]
    inits += [rel for rel in index.files if rel.endswith("__init__.py") and rel.count("/") <= 2]
    for rel in inits:
        match = re.match(r'\s*[rRuU]?("""|\'\'\')(.*?)\1', index.text(rel), re.DOTALL)
        if match and match.group(2).strip():
            return " ".join(match.group(2).split())[:600]
    return ""


def template_purpose(state: AskState, index: RepoIndex | None) -> str:
    found = readme_head(index) or package_docstring(state, index)
    return found or "The repository states no purpose (no README paragraph, no package docstring)."


def template_architecture(state: AskState) -> str:
    modules = central(state)[:6]
    if not modules:
        return "No module imports another module of the repository."
    lines = []
    for m in modules:
        defines = ", ".join(m["defines"][:4])  # not quoted: the cited line 1 need not hold them
        lines.append(f"- {m['path']}:1 is imported by {m['fan_in']} module(s)"
                     + (f"; defines {defines}" if defines else ""))
    return "\n".join(lines)


def build_report(state: AskState, purpose: str, architecture: str) -> str:
    s, arch = state["repo_structure"], state["architecture"]
    name = s.get("root", "repository")
    parts = [f"# Repository report: {name}", "", "## Purpose", purpose.strip(), "",
             "## Structure", f"{s.get('files', 0)} files in {s.get('dirs', 0)} directories; by "
             "type: " + ", ".join(f"{k} {v}" for k, v in s.get("by_extension", {}).items()),
             "", "```", s.get("tree", ""), "```"]
    skipped = s.get("skipped") or {}
    if skipped:
        parts.append("Not read: " + ", ".join(f"{v} {k}" for k, v in sorted(skipped.items())))
    parts += ["", "## Dependencies", *_dependency_lines(state["dependencies"]), "",
              "## Architecture", architecture.strip(), "", _module_table(state),
              "", "## Entry points", *_entry_lines(arch)]
    return "\n".join(parts).strip() + "\n"


def _dependency_lines(deps: dict[str, Any]) -> list[str]:
    nested = _nested_lines((deps or {}).get("nested") or [])
    if not deps or not any(deps.get(k) for k in ("runtime", "dev", "optional")):
        return [NO_ROOT_MANIFEST, *nested] if nested else [NO_MANIFEST]
    lines = [f"From {', '.join(deps['sources'])}."]
    for kind in ("runtime", "dev", "optional"):
        entries = deps.get(kind) or []
        if entries:
            shown = ", ".join(f"{e['name']}{(' ' + e['spec']) if e['spec'] else ''}"
                              for e in entries[:40])
            more = f" and {len(entries) - 40} more" if len(entries) > 40 else ""
            lines.append(f"- **{kind}** ({len(entries)}): {shown}{more}")
    for error in deps.get("errors", []):
        lines.append(f"- could not read {error}")
    return lines + nested


def _nested_lines(nested: list[dict[str, Any]]) -> list[str]:
    """Nested projects (fixtures, examples) apart: their dependencies are not the project's."""
    if not nested:
        return []
    lines = ["", "Nested projects (manifests below the root, not the project's dependencies):"]
    for project in nested[:20]:
        kinds = [", ".join(project["runtime"])] if project["runtime"] else []
        kinds += [f"{kind}: {', '.join(project[kind])}" for kind in ("dev", "optional")
                  if project[kind]]
        found = "; ".join(kinds) or (f"could not read: {project['error']}"
                                     if project["error"] else "no dependencies")
        lines.append(f"- {project['project']} ({project['manifest']}): {found}")
    if len(nested) > 20:
        lines.append(f"- and {len(nested) - 20} more")
    return lines


def _module_table(state: AskState) -> str:
    modules = central(state)[:10]
    if not modules:
        return ""
    rows = ["| module | imported by | imports (in the repo) | defines |", "|---|---|---|---|"]
    for m in modules:
        rows.append(f"| {m['path']} | {m['fan_in']} | {len(m['imports'])} | "
                    f"{', '.join(m['defines'][:5]) or '-'} |")
    return "\n".join(rows)


def _entry_lines(arch: dict[str, Any]) -> list[str]:
    entries = (arch or {}).get("entry_points") or []
    if not entries:
        return ["No entry point found (no `__main__`, console script, bin or `func main`)."]
    return [f"- {e['path']} ({e['kind']}: {e['detail']})" for e in entries[:20]]
