"""`assert f(x) == pytest.raises(E)` in a test becomes `with pytest.raises(E): f(x)`.

Measured on the 1.5B (build benchmark at 48067b3, inventory I2): its tests for "raises
ValueError when percent is below 0" were `assert apply_discount(100.0, 101) ==
pytest.raises(ValueError)`. That line can never pass (the call raises before the comparison,
or its value is no context manager), so right code failed the test, the code rounds were
told to fix the code, and the task was blocked. What the line means is plain, so the harness
writes it as pytest spells it; only an assert whose whole test is that comparison, on lines
of its own.
"""

from __future__ import annotations

import ast


def with_raises_blocks(text: str) -> tuple[str, list[str]]:
    """(`text` with each `assert CALL == pytest.raises(E)` a `with` block; one note per
    line changed)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    lines = text.splitlines(keepends=True)
    found = [(node, raises, call) for node in ast.walk(tree) if isinstance(node, ast.Assert)
             for raises, call in [_compared_to_raises(node)] if raises is not None]
    notes: list[str] = []
    for node, raises, call in sorted(found, key=lambda f: f[0].lineno, reverse=True):
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        indent = lines[first][:node.col_offset]
        if lines[first][node.col_offset:].lstrip()[:6] != "assert" or indent.strip() \
                or _shares_lines(tree, node):
            continue
        lines[first:last + 1] = [f"{indent}with {ast.unparse(raises)}:\n",
                                 f"{indent}    {ast.unparse(call)}\n"]
        notes.append(f"line {node.lineno}: `assert ... == {ast.unparse(raises)}` is now "
                     f"`with {ast.unparse(raises)}:` (a call compared to it never passes)")
    return "".join(lines), notes[::-1]  # in the order of the lines


def _compared_to_raises(node: ast.Assert) -> tuple[ast.Call | None, ast.expr | None]:
    """(the `pytest.raises(E)` call, the other side) of `assert X == pytest.raises(E)`."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Eq, ast.Is))):
        return None, None
    left, right = test.left, test.comparators[0]
    for raises, other in ((right, left), (left, right)):
        if _is_raises(raises) and isinstance(other, ast.Call):
            return raises, other  # type: ignore[return-value]
    return None, None


def _is_raises(node: ast.expr) -> bool:
    """`pytest.raises(E)` or `raises(E)`, given only the exception (and `match=`): the form
    that is a context manager, not the one that calls a function itself."""
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return False
    func = node.func
    named = (isinstance(func, ast.Attribute) and func.attr == "raises"
             and isinstance(func.value, ast.Name) and func.value.id == "pytest") \
        or (isinstance(func, ast.Name) and func.id == "raises")
    return named and all(k.arg == "match" for k in node.keywords)


def _shares_lines(tree: ast.Module, node: ast.Assert) -> bool:
    """Whether another statement stands on the assert's lines (`x = 1; assert ...`)."""
    span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
    return any(isinstance(other, ast.stmt) and other is not node
               and not isinstance(other, (ast.FunctionDef, ast.AsyncFunctionDef,
                                          ast.ClassDef, ast.With, ast.If, ast.For,
                                          ast.While, ast.Try, ast.AsyncWith, ast.AsyncFor))
               and (other.lineno in span or (other.end_lineno or other.lineno) in span)
               for other in ast.walk(tree))
