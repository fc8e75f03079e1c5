"""After two echoes, the failing function shown without its body, to be written anew.

Measured on the 1.5B (review's failing_test, benchmarks/review_bench.py at d3a1e88): shown
`slugify` with its failing assertion, the worked-through failure and then its own reading of
it, the model sent the whole file back unchanged in every attempt of both refinements: the
body it is shown is the answer it gives. A function shown as its signature and docstring
with the body left to write is a task the model is trained on (HumanEval's shape); the
reply is merged by name into the real file, so nothing else it holds is lost, and a worse
body is undone by the rounds like any other round that left fewer tests passing.

Which functions: those of the files to edit that the failure calls by name, else those
holding a line the failure points at (a finding's `passwords.py line 8`), else those it
names (a request's "read_static serves files by a name taken from the URL")."""

from __future__ import annotations

import ast
import re

from codeloop.jobs.edit_engine.echo_focus import called_names, pointed_lines

PLACEHOLDER = "# TODO: write this body: the one it had failed the checks below"


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def failing_functions(output: str, files: dict[str, str], paths: list[str]
                      ) -> dict[str, list[str]]:
    """{path: [function names]} of `paths` the failure `output` calls, else those holding
    a line it points at; {} when it names none of them."""
    called = called_names(output)
    found: dict[str, list[str]] = {}
    for path in paths:
        tree = _parsed(files.get(path, ""))
        if tree is not None:
            names = [f.name for f in _functions(tree) if f.name in called]
            if names:
                found[path] = names
    if found:
        return found
    for path, number in pointed_lines(output, paths):
        tree = _parsed(files.get(path, ""))
        for function in _functions(tree) if tree is not None else []:
            if function.lineno <= number <= (function.end_lineno or function.lineno) \
                    and function.name not in found.get(path, []):
                found.setdefault(path, []).append(function.name)
    if found:
        return found
    words = set(re.findall(r"[A-Za-z_]\w*", output))  # "read_static serves files by ..."
    for path in paths:
        tree = _parsed(files.get(path, ""))
        names = [f.name for f in _functions(tree) if f.name in words and not
                 f.name.startswith("__")] if tree is not None else []
        if names:
            found[path] = names
    return found


def blank_bodies(source: str, names: list[str]) -> str | None:
    """`source` with the bodies of the functions `names` (after their docstrings) replaced by
    a line that asks for them; None when it does not parse or holds none of them."""
    tree = _parsed(source)
    if tree is None:
        return None
    lines = source.splitlines(keepends=True)
    spans = []
    for function in _functions(tree):
        if function.name not in names:
            continue
        body = function.body[1:] if ast.get_docstring(function) is not None else function.body
        if not body:
            continue
        indent = " " * body[0].col_offset
        spans.append((body[0].lineno, body[-1].end_lineno or body[-1].lineno,
                      f"{indent}{PLACEHOLDER}\n{indent}raise NotImplementedError\n"))
    if not spans:
        return None
    # nested functions fall inside their parent's span: keep the outermost only
    spans.sort()
    outer: list[tuple[int, int, str]] = []
    for span in spans:
        if outer and span[0] <= outer[-1][1]:
            continue
        outer.append(span)
    for start, end, text in reversed(outer):
        lines[start - 1:end] = [text]
    return "".join(lines)


def blanked_view(output: str, shown: dict[str, str], paths: list[str]
                 ) -> tuple[dict[str, str], list[str]]:
    """(`shown` with the failing functions' bodies blanked, `path: name` of each), or
    (`shown`, []) when the failure names none."""
    view, said = dict(shown), []
    for path, names in failing_functions(output, shown, paths).items():
        blanked = blank_bodies(shown[path], names)
        if blanked is not None:
            view[path] = blanked
            said += [f"{path}: {name}" for name in names]
    return view, said


def without_lines_of(output: str, before: dict[str, str], view: dict[str, str]) -> str:
    """The failure `output` without the code lines that `view` left out of `before` (pytest
    quotes the failing function's lines in its traceback: shown, they are the old body)."""
    gone: set[str] = set()
    for path, text in view.items():
        if before.get(path) != text:
            kept = {line.strip() for line in text.splitlines()}
            gone |= {line.strip() for line in before[path].splitlines()} - kept - {""}
    if not gone:
        return output
    return "\n".join(line for line in output.splitlines()
                     if line.lstrip(">").strip() not in gone)


def without_placeholder(text: str) -> str:
    """A reply's file without the placeholder comment it copied above the new body."""
    if PLACEHOLDER not in text:
        return text
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() != PLACEHOLDER)


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
