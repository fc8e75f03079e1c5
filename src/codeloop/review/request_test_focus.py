"""A request test whose failing assertion looks at nothing the request is about is wrong.

Measured on the 1.5B (benchmarks/review_bench.py, mutable_default, every run since request
tests): asked about "two calls to add_item without a cart", it wrote
`assert add_item("pen", 2) == [("pen", 2)]` then `assert cart_size([]) == 2`. The second
fails on the code under review, so the test was kept as reproducing the request, yet no fix
of add_item can meet it: the refiner chased `assert 0 == 2` and sent the code back unchanged.

Where the request names functions or classes of the code under review, the assertion that
fails must reach one of them: call it, or use a value that came from it (a variable
assigned from a call of it, or passed to one, as a cart is to `add_item(name, cart)`),
through any chain of such variables. Only a plain `assert` line is judged; a
`pytest.raises` block, or an assertion that does not parse on its own line, is left be.

A test that fails because an exception was not raised demands one: where the request asks
for nothing of the kind (no word of raising, errors, exceptions, refusing or invalid input,
nor the exception's name), the test invents the requirement. Measured on the 1.5B
(mutable_default, 64d5bf8): its blind test refused, it wrote tests that `add_item("pen", -1)`
raise ValueError, for a request about two calls sharing a cart; kept as reproducing, they
sent the refiner after a check no one asked for. The same holds once a change is made: a
request test whose only failure left is such a "DID NOT RAISE" is set aside then
(`request_test_unseen.invented_demands`; off_by_one at 64d5bf8: the blanked round wrote the right `get_page`, and
the request test's last check, `get_page(items, 5, 3)` raising IndexError, kept blocking).
"""

from __future__ import annotations

import ast
import re

_WORD = re.compile(r"[A-Za-z_]\w*")
_DID_NOT_RAISE = re.compile(r"DID NOT RAISE (?:<class '(?:[\w.]+\.)?(\w+)'>|(?:[\w.]+\.)?(\w+))")
# the request's words that ask for an exception (besides the exception's own name)
_ASKS_TO_RAISE = re.compile(r"\b(rais\w*|errors?|exceptions?|reject\w*|refus\w*|invalid|"
                            r"throw\w*|fail\w*|not allowed|forbid\w*|disallow\w*)\b",
                            re.IGNORECASE)
# pytest's own fixtures: reached only through a call (`save(tmp_path)`), like any variable
PLAIN_FIXTURES = {"tmp_path", "tmpdir", "monkeypatch", "capsys", "capfd", "caplog"}


def defined_names(code: dict[str, str]) -> set[str]:
    """The functions, methods and classes `code` ({path: text}) defines (dunders aside)."""
    defined: set[str] = set()
    for text in code.values():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        defined |= {node.name for node in ast.walk(tree) if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and not node.name.startswith("__")}
    return defined


def request_names(request: str, code: dict[str, str]) -> set[str]:
    """The functions, methods and classes of `code` ({path: text}) the request names."""
    return defined_names(code) & set(_WORD.findall(request))


def _called(node: ast.AST) -> set[str]:
    """The names called in `node` (`f(...)`, `obj.f(...)`: f)."""
    out = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            out.add(func.attr if isinstance(func, ast.Attribute) else
                    func.id if isinstance(func, ast.Name) else "")
    return out


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _reached(function: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]) -> set[str]:
    """The variables of `function` whose values come from, or went into, a call of `names`."""
    # a fixture's value comes from elsewhere: given the benefit of the doubt
    reached = {a.arg for a in function.args.args} - PLAIN_FIXTURES
    while True:
        before = len(reached)
        for node in ast.walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For,
                                 ast.withitem)):
                value = getattr(node, "value", None) or getattr(node, "iter", None) \
                    or getattr(node, "context_expr", None)
                targets = getattr(node, "targets", None) or [
                    getattr(node, "target", None) or getattr(node, "optional_vars", None)]
                if value is not None and (_called(value) & names or _names(value) & reached):
                    for target in targets:
                        if target is not None:
                            reached |= _names(target)
            elif isinstance(node, ast.Call) and _called(node) & names:
                reached |= {n for arg in [*node.args, *(k.value for k in node.keywords)]
                            for n in _names(arg)}
                if isinstance(node.func, ast.Attribute):  # obj.method(...): obj is reached
                    reached |= _names(node.func.value)
        if len(reached) == before:
            return reached


def blind_assertion(source: str, function: str, line: str, names: set[str]) -> bool:
    """The failing `assert` `line` of test `function` in `source` reaches none of `names`
    (see the module's docstring); False when it cannot tell."""
    if not names or not line.startswith("assert "):
        return False
    try:
        failing = ast.parse(line)
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    test = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function), None)
    if test is None:
        return False
    if _called(failing) & names:
        return False
    if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(failing)):
        return False  # the function itself is looked at (`assert add_item.__defaults__`)
    return not _names(failing) & _reached(test, names)


def invented_raise(failure: str, request: str) -> str | None:
    """The exception a failing test's section `failure` ("DID NOT RAISE ...") demands when
    the request asks for no exception at all; None otherwise."""
    match = _DID_NOT_RAISE.search(failure)
    if match is None:
        return None
    name = match.group(1) or match.group(2)
    if _ASKS_TO_RAISE.search(request) or re.search(rf"\b{re.escape(name)}\b", request):
        return None
    return name

