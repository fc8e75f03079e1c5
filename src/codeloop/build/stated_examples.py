"""The examples a task's text states (`slugify('Hello, World!') == 'hello-world'`,
`encode(62) == '10'`), written by the harness as a test beside the model's own, and the
judge when the two disagree.

Measured on the 1.5B (build benchmark, stop 62): the tests it writes carry expected values
it made up (`low_stock([item1, item2], 10) == ['Test2']` for items of quantity 10 and 20,
`apply_discount(100.0, 15) == 170.0`); its code, sent back unchanged twice, and its tests
disagreed, and the task was retried until the cap (inventory I4, shortener S1). The task's
own examples are not made up. A file of them goes beside the model's tests; when it passes
and the code still fails only the model's own tests, those are dropped however many they
are (unmet_tests.py), each named in the outcome. Only a call of a function the task builds,
with literal arguments and a literal expected value, is taken.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

from codeloop.build.contract import TaskContract, module_of

_EXAMPLE = re.compile(r"\b([A-Za-z_]\w*)\(([^()]*)\)\s*==\s*"
                      r"('[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?|True|False|None|\[[^\[\]]*\])")
_ROUND_TRIP = re.compile(r"\b([A-Za-z_]\w*)\(\s*([A-Za-z_]\w*)\(\s*([A-Za-z_]\w*)\s*\)\s*\)"
                         r"\s*==\s*([A-Za-z_]\w*)\b")
SUFFIX = "_examples"


def stated_examples(text: str, names: list[str]) -> list[str]:
    """`name(args) == expected` for each example in `text` of a function in `names`, with
    literal arguments and value, in order, once each."""
    found: list[str] = []
    for match in _EXAMPLE.finditer(text):
        name, args, expected = match.groups()
        if name not in names:
            continue
        try:
            ast.literal_eval(f"({args},)" if args.strip() else "()")
            ast.literal_eval(expected)
        except (ValueError, SyntaxError):
            continue
        example = f"{name}({args.strip()}) == {expected}"
        if example not in found:
            found.append(example)
    return found + [e for e in _round_trips(text, names, found) if e not in found]


def _round_trips(text: str, names: list[str], examples: list[str]) -> list[str]:
    """`outer(inner(a)) == a` for each round trip `outer(inner(x)) == x` that `text` states
    of two functions in `names`, on each single literal argument `a` of inner's `examples`."""
    trips: list[str] = []
    for match in _ROUND_TRIP.finditer(text):
        outer, inner, variable, result = match.groups()
        if variable != result or outer == inner or not {outer, inner} <= set(names):
            continue
        for example in examples:
            call = ast.parse(example, mode="eval").body.left  # type: ignore[attr-defined]
            if call.func.id == inner and len(call.args) == 1 and not call.keywords:
                argument = ast.unparse(call.args[0])
                trips.append(f"{outer}({inner}({argument})) == {argument}")
    return list(dict.fromkeys(trips))


def called_names(example: str) -> set[str]:
    """The functions an example calls by name."""
    return {n.func.id for n in ast.walk(ast.parse(example, mode="eval"))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def examples_beside(contract: TaskContract, text: str) -> dict[str, str]:
    """{path: test file} of the examples the task's `text` states, for a task with one
    Python module ({} when there is none)."""
    modules = [p for p in contract.modules if p.endswith(".py")]
    examples = stated_examples(text, contract.names)
    if contract.language != "python" or len(modules) != 1 or not examples:
        return {}
    used = sorted(set().union(*map(called_names, examples)) & set(contract.names))
    lines = ['"""The examples the task\'s text states, checked by the harness: where the',
             "model's own tests disagree with code that meets these, the own tests go.\"\"\"",
             "", f"from {module_of(modules[0])} import {', '.join(used)}", ""]
    for number, example in enumerate(examples, 1):
        lines += ["", f"def test_stated_example_{number}():", f"    assert {example}", ""]
    path = PurePosixPath(contract.test_path)
    return {str(path.with_name(f"{path.stem}{SUFFIX}{path.suffix}")):
            "\n".join(lines).rstrip() + "\n"}


def is_examples_file(path: str) -> bool:
    return PurePosixPath(path).stem.endswith(SUFFIX)
