"""A request test that demands a raise from a call the workspace's own test expects to
return is wrong when written.

Measured on the 1.5B (benchmarks/review_bench.py, swallowed_exception, every run since
request tests): asked "a missing settings file should still give the defaults, but a file
that is not valid JSON must raise ValueError", it wrote `test_missing_file_gives_defaults`
expecting `load_settings(tmp_path / "absent.json")` to raise ValueError, the very call the
workspace's `test_missing_file_gives_defaults` makes and expects to return the defaults,
and passes on. Kept as reproducing, it led the refiner away from its own right first answer
(JSONDecodeError to ValueError, the missing file left alone) to one that raised for every
error; set aside after that change (request_test_conflict.py), the broken workspace test
was what the next refinement chased, and the rounds ran out.

So, at write time: a request test function whose failure is "DID NOT RAISE", where a call
of the code under review inside its `pytest.raises` block is, as written (unparsed, so
quoting does not matter), a call that a workspace test which passes on the code as it is
makes outside any such block, is mistaken; the writer is told which test makes the call.
The same call may well raise for another reason the test arranges (a file it writes first):
only a self-contained call (a plain function, constant arguments or a fresh directory the
test touches nowhere else), the same in a test that passes, and only a raise that did not
happen, count.
"""

from __future__ import annotations

import ast

# fixtures that give each test an empty directory of its own
_FRESH_DIRECTORIES = {"tmp_path", "tmpdir"}


def _raises_bodies(function: ast.AST) -> list[ast.With | ast.AsyncWith]:
    """The `with pytest.raises(...)` (or `raises(...)`) blocks in `function`."""
    blocks = []
    for node in ast.walk(function):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call)
                and _callee(item.context_expr) == "raises" for item in node.items):
            blocks.append(node)
    return blocks


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")


def _calls(nodes: list[ast.AST], defined: set[str], function: ast.AST) -> set[str]:
    """The self-contained calls of `defined` functions in `nodes` (of test `function`),
    unparsed: a plain function (no object whose state the test set up) with arguments made
    of constants and, at most, a directory fixture that `function` uses nowhere else (so
    nothing was arranged in it first). `load_settings(path)` after writing `path` is not
    the same situation in two tests; `load_settings(tmp_path / "absent.json")` is."""
    found = set()
    for node in nodes:
        for call in ast.walk(node):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id in defined):
                continue
            names = {n.id for arg in [*call.args, *(k.value for k in call.keywords)]
                     for n in ast.walk(arg) if isinstance(n, ast.Name)}
            if names - _FRESH_DIRECTORIES:
                continue
            uses = sum(1 for n in ast.walk(function) if isinstance(n, ast.Name)
                       and n.id in names)
            inside = sum(1 for n in ast.walk(call) if isinstance(n, ast.Name) and n.id in names)
            if uses == inside:
                found.add(ast.unparse(call))
    return found


def _test_functions(source: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    return {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test")}


def returning_calls(spec: dict[str, str], failing_before: set[tuple[str, str]],
                    defined: set[str]) -> dict[str, str]:
    """{call as written: "file::test"} for each call of `defined` that a workspace test
    (`spec`: {path: text}) passing on the code as it is makes outside any pytest.raises
    block. `failing_before`: (file, test) of the tests that failed on it."""
    found: dict[str, str] = {}
    for path, text in spec.items():
        for name, function in _test_functions(text).items():
            if (path, name) in failing_before:
                continue
            inside = _calls([s for b in _raises_bodies(function) for s in b.body], defined,
                            function)
            for call in _calls([function], defined, function) - inside:
                found.setdefault(call, f"{path}::{name}")
    return found


def raise_against_the_spec(source: str, function: str, failure: str,
                           returning: dict[str, str], defined: set[str]) -> str | None:
    """Why test `function` of the request test `source` is wrong, when its `failure`
    (pytest's section for it) is a raise that did not happen from a call in `returning`
    (returning_calls); None otherwise."""
    if "DID NOT RAISE" not in failure:
        return None
    node = _test_functions(source).get(function)
    if node is None:
        return None
    demanded = _calls([s for b in _raises_bodies(node) for s in b.body], defined, node)
    clash = sorted(demanded & returning.keys())
    if not clash:
        return None
    return (f"it expects `{clash[0]}` to raise, but {returning[clash[0]]} makes that same "
            "call, expects it to return, and passes: the workspace's tests are the "
            "specification; test what the request asks without contradicting them")


def summary_ids(failures: list[str]) -> list[tuple[str, str]]:
    """(file, function) of each pytest summary line `path::name[param] - why`."""
    out = []
    for line in failures:
        test_id = line.split(" - ")[0].strip()
        if "::" in test_id:
            path, name = test_id.split("::", 1)
            out.append((path, name.split("[")[0].split("::")[-1]))
    return out
