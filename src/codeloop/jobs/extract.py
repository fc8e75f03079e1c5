"""Getting code out of model replies: fenced blocks, and a function's solution.

Small models answer with fences, prose, several blocks, or no fences at all, and they
append demo code (`print(f(3))`, `if __name__ == "__main__":`). Extraction keeps what
defines the solution (imports, functions, classes, constants) and drops the demo.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
                    re.MULTILINE | re.DOTALL)
_OPEN_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+.-]*)[^\n]*\n", re.MULTILINE)
_CODE_START = re.compile(r"^(def |async def |class |import |from \S+ import |@)", re.MULTILINE)
_NON_PYTHON = {"bash", "sh", "shell", "console", "text", "json", "yaml", "output", "plaintext"}


def code_blocks(reply: str, *, any_language: bool = False) -> list[str]:
    """Fenced blocks in order; an unclosed last fence (a reply cut by the token budget)
    counts as a block running to the end. Blocks marked as shell, JSON, YAML or plain text
    are left out (they are not the Python wanted) unless `any_language`: a whole file after
    a `FILE: config.json` line is JSON."""
    skip = set() if any_language else _NON_PYTHON
    blocks: list[str] = []
    end = 0
    for match in _FENCE.finditer(reply):
        if match.group(2).lower() not in skip:
            blocks.append(match.group(3))
        end = match.end()
    tail = _OPEN_FENCE.search(reply, end)
    if tail and tail.group(2).lower() not in skip:
        blocks.append(reply[tail.end():])
    return blocks


def outer_block(reply: str) -> tuple[str, bool] | None:
    """The text from the first opening fence to the last closing fence of the same kind,
    so a file that holds fences itself (a README) stays whole; and whether it was closed.
    None when the reply has no fence."""
    opening = _OPEN_FENCE.search(reply)
    if opening is None:
        return None
    closing = re.compile(rf"^[ \t]*{re.escape(opening.group(1))}[ \t]*$", re.MULTILINE)
    last = None
    for last in closing.finditer(reply, opening.end()):
        pass
    if last is None:
        return reply[opening.end():], False
    return reply[opening.end():last.start()], True


def _defines(tree: ast.Module, name: str) -> bool:
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
        for n in tree.body
    )


@dataclass
class _Parsed:
    tree: ast.Module
    lines: list[str]

    def segment(self, node: ast.stmt) -> str:
        """The node's own text (decorators and comments included), as the model wrote it."""
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        return "\n".join(self.lines[first - 1: node.end_lineno]).rstrip()

    def defined(self) -> set[str]:
        return {n.name for n in self.tree.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _parse(code: str) -> _Parsed | None:
    """Parse `code`, dropping trailing lines until it parses (prose after code, or a
    reply cut mid-statement). None when nothing parses."""
    lines = code.rstrip().splitlines()
    while lines:
        try:
            return _Parsed(_parse_source("\n".join(lines)), lines)
        except SyntaxError:
            lines.pop()
    return None


def _parse_source(source: str) -> ast.Module:
    """ast.parse, once more after CPython 3.11's spurious "AST constructor recursion depth
    mismatch" SystemError: its AST state is shared by threads (bench solves problems in
    threads), and a parse racing another can fail on valid code (python/cpython#106905)."""
    try:
        return ast.parse(source)
    except SystemError:
        return ast.parse(source)


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def solution_source(parsed: _Parsed) -> str:
    """Keep imports, definitions and plain constants; drop demo calls, prints, asserts,
    loops and `if __name__ == "__main__":` blocks at top level."""
    defined = parsed.defined()
    kept: list[str] = []
    for node in parsed.tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                             ast.AsyncFunctionDef, ast.ClassDef)) or isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and not _mentions(node.value, defined):
            kept.append(parsed.segment(node))
    return "\n\n".join(kept)


def _unfenced_candidate(reply: str) -> str | None:
    """Code without fences: from the first line that starts like Python to the end."""
    match = _CODE_START.search(reply)
    return reply[match.start():] if match else None


def _parsed_candidates(reply: str) -> list[_Parsed]:
    candidates = code_blocks(reply)
    if not candidates:
        unfenced = _unfenced_candidate(reply)
        candidates = [unfenced] if unfenced else []
    return [p for p in map(_parse, candidates) if p is not None and p.tree.body]


def parsed_modules(reply: str) -> list[ast.Module]:
    """The reply's code blocks (or its unfenced code) that parse, in order, as
    `extract_code` reads them."""
    return [p.tree for p in _parsed_candidates(reply)]


def extract_code(reply: str, entry_point: str) -> str | None:
    """The solution in `reply`: the (last) block that defines `entry_point`, plus helper
    functions other blocks define and it lacks. None when no usable code is there."""
    parsed = _parsed_candidates(reply)
    primary = next((p for p in reversed(parsed) if _defines(p.tree, entry_point)), None)
    if primary is None:
        return None
    have = primary.defined()
    helpers: list[str] = []
    for other in parsed:
        if other is primary:
            continue
        for node in other.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name not in have \
                    and _mentions(primary.tree, {node.name}):
                helpers.append(other.segment(node))
                have.add(node.name)
    return "\n\n\n".join(helpers + [solution_source(primary)]).strip() + "\n"
