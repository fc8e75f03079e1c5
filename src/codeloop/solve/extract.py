"""Checking solve's code: the program around a solution, its signature against the task,
and prose stages' answers that carry code. (Getting code out of replies: jobs/extract.py.)
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeloop.jobs.extract import code_blocks


def join_program(context: str, code: str) -> str:
    """The full program: the task's context (imports, helpers), then the solution."""
    context = context.strip("\n")
    return f"{context}\n\n\n{code}" if context else code


# ---------------------------------------------------------------- signature compliance


@dataclass(frozen=True)
class SignatureCheck:
    ok: bool
    problem: str = ""


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    a = node.args
    params = [(p.arg, "positional-only") for p in a.posonlyargs]
    params += [(p.arg, "positional") for p in a.args]
    if a.vararg:
        params.append((a.vararg.arg, "*args"))
    params += [(p.arg, "keyword-only") for p in a.kwonlyargs]
    if a.kwarg:
        params.append((a.kwarg.arg, "**kwargs"))
    return params


def check_signature(code: str, expected: ast.FunctionDef | ast.AsyncFunctionDef, *,
                    names: bool = True) -> SignatureCheck:
    """Does `code` define the expected function at top level with the same parameters
    (names, order and kinds; with `names=False` order and kinds only)? Annotations and
    defaults may differ."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return SignatureCheck(False, f"the code does not parse: line {exc.lineno}: {exc.msg}")
    found = [n for n in tree.body
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == expected.name]
    if not found:
        names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return SignatureCheck(False, f"no top-level function '{expected.name}'"
                              + (f" (found: {', '.join(names)})" if names else ""))
    want, got = _params(expected), _params(found[-1])
    if not names and [k for _, k in want] == [k for _, k in got]:
        return SignatureCheck(True)
    if want != got:
        def show(ps: list[tuple[str, str]]) -> str:
            return "(" + ", ".join(n for n, _ in ps) + ")"
        return SignatureCheck(False, f"'{expected.name}' takes {show(got)}, "
                              f"the task says {show(want)}")
    return SignatureCheck(True)


# ---------------------------------------------------------------- functions left empty


def _is_filler(node: ast.stmt) -> bool:
    """A docstring, `pass` or `...`: what a function holds before it is written."""
    return isinstance(node, ast.Pass) or (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        and (isinstance(node.value.value, str) or node.value.value is Ellipsis))


def empty_function(code: str, name: str) -> bool:
    """True when `code` defines `name` at top level and its body is only a docstring,
    `pass` or `...`: the task's stub given back, nothing written."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    found = [n for n in tree.body
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    return bool(found) and all(_is_filler(node) for node in found[-1].body)


def unparsable_definition(reply: str, name: str) -> str | None:
    """The last code block of `reply` that defines `name` and does not parse as written.
    Extraction reads such a block by dropping its trailing lines until it parses, which can
    leave only the function's docstring (one unclosed bracket in its one `return` line);
    the block as written lets review report the real syntax error instead of an empty
    function's `None`."""
    definition = re.compile(rf"^(?:async\s+)?def\s+{re.escape(name)}\s*\(", re.MULTILINE)
    blocks = code_blocks(reply)
    if not blocks:  # an unfenced reply: its code starts at the definition
        start = definition.search(reply)
        blocks = [reply[start.start():]] if start else []
    for block in reversed(blocks):
        if not definition.search(block):
            continue
        try:
            ast.parse(block)
        except SyntaxError:
            return block.strip("\n") + "\n"
        return None
    return None


# ---------------------------------------------------------------- prose-only stages

_CODE_LINE = re.compile(
    r"^\s*(?:(?:\d+[.)]|[-*•])\s+)?"  # an optional list marker: "1. x = 0" is pseudocode
    r"(def \w+\s*\(|class \w+[:(]|import \w|from \w[\w.]* import |return\b|"
    r"for \w[\w, ]* in .+:\s*$|while .+:\s*$|if .+:\s*$|elif .+:\s*$|else:\s*$|"
    r"\w+(\[[^\]]*\])?\s*[+\-*/]?=\s*\S.*$)",
    re.MULTILINE,
)


def contains_code(text: str) -> bool:
    """True when a prose answer carries code or pseudocode: a fence, or two or more lines
    that read as Python statements (one stray `x = 0` in prose is allowed)."""
    if "```" in text or "~~~" in text:
        return True
    return len(_CODE_LINE.findall(text)) >= 2


def strip_code(text: str) -> str:
    """Prose only: fenced blocks and statement-like lines removed (used when a second ask
    still carried code, so later prompts stay short and code-free)."""
    text = re.sub(r"(```|~~~).*?(\1|\Z)", "", text, flags=re.DOTALL)
    kept = [ln for ln in text.splitlines() if not _CODE_LINE.match(ln)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
