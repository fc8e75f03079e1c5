"""ask's modules import each other without a cycle (the tools once did: walk imported retrieval,
which imported sources, which imported walk), lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import codeloop.ask

ASK = Path(codeloop.ask.__file__).parent


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in ASK.rglob("*.py"):
        name = "codeloop.ask." + ".".join(path.relative_to(ASK).with_suffix("").parts)
        name = name.removesuffix(".__init__")
        graph[name] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                graph[name].add(node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names)
    return {k: {m for m in v if m in graph and m != k} for k, v in graph.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_ask_package_has_no_import_cycle():
    graph = import_graph()
    assert "codeloop.ask.tools.walk" in graph and graph["codeloop.ask.tools.walk"] == set()
    assert find_cycle(graph) == []


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
