"""A test that uses a fixture of its file without asking for it gets it as a parameter.

pytest hands a fixture's value only to the tests that name it among their parameters. A
test body that reads the name of a fixture function it did not request reads the function
itself: `store.get(1) == note` compares a Note with a function and fails whatever the code.
Measured on the 1.5B (build benchmark at 4c7423d, notes N3): `test_add_note(note_store,
note_in)` asserted `note_store.get(1) == note` with `note` a fixture of the file; the code
was right, was sent back unchanged twice, and the task was blocked at the benchmark's cap.
Calling a fixture directly is an error in pytest too, so the name is never meant as the
function: the parameter is added (the test then reads the fixture's value, as it meant).
"""

from __future__ import annotations

import ast


def fixtures(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The file's top-level fixture functions, by name."""
    return {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any("fixture" in ast.unparse(d) for d in node.decorator_list)}


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = node.args
    return {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} | {
        a.arg for a in (args.vararg, args.kwarg) if a is not None}


def _assigned(node: ast.AST) -> set[str]:
    """Names the function binds itself (assignments, loop targets, imports, nested defs)."""
    bound: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, (ast.Store, ast.Del)):
            bound.add(inner.id)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in inner.names)
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and inner is not node:
            bound.add(inner.name)
    return bound


def _unrequested(node: ast.FunctionDef | ast.AsyncFunctionDef,
                 fixtures: set[str]) -> list[str]:
    """The fixtures `node` reads by name without requesting them, in order of first use."""
    own = _parameters(node) | _assigned(node) | {node.name}
    found: list[str] = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) \
                and inner.id in fixtures and inner.id not in own and inner.id not in found:
            found.append(inner.id)
    return found


def with_requested_fixtures(text: str) -> tuple[str, list[str]]:
    """(`text` with each test and fixture asking for the fixtures it uses by name,
    ["test_x: note", ...]); `text` as it was when none is missing or it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    found = set(fixtures(tree))
    if not found:
        return text, []
    lines = text.splitlines(keepends=True)
    notes: list[str] = []
    functions = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and (n.name.startswith("test") or n.name in found)]
    for node in sorted(functions, key=lambda n: n.lineno, reverse=True):
        missing = _unrequested(node, found)
        if not missing or node.args.vararg or node.args.kwarg or node.args.kwonlyargs \
                or node.args.defaults:
            continue
        edited = _add_parameters(lines, node, missing)
        if edited is None:
            continue
        lines = edited
        notes.append(f"{node.name}: {', '.join(missing)}")
    if not notes:
        return text, []
    result = "".join(lines)
    try:
        ast.parse(result)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    return result, sorted(notes)


def _add_parameters(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef,
                    names: list[str]) -> list[str] | None:
    """`lines` with `names` appended to the parameters of `node`'s one-line signature; None
    when the signature spans lines or its closing parenthesis is not found."""
    index = node.lineno - 1
    line = lines[index]
    opening = line.find(f"def {node.name}(")
    if opening < 0:
        return None
    start = opening + len(f"def {node.name}(")
    depth, close = 1, -1
    for position in range(start, len(line)):
        if line[position] == "(":
            depth += 1
        elif line[position] == ")":
            depth -= 1
            if depth == 0:
                close = position
                break
    if close < 0:
        return None
    inside = line[start:close].rstrip().rstrip(",")
    added = ", ".join(names)
    joined = f"{inside}, {added}" if inside.strip() else added
    return [*lines[:index], line[:start] + joined + line[close:], *lines[index + 1:]]
