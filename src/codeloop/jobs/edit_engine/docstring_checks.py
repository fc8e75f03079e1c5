"""The examples in the docstrings of the functions an edit changed, run as checks.

Why: a function's docstring often says what it gives (`1205 -> '12.05', -250 -> '-2.50'`),
and the project's tests do not always try the same inputs. Measured on the agent suite: the
1.5B's fix of fix_amount_format passed the visible tests and broke on negative amounts, which
the docstring it had in front of it spells out. A failing example goes back to the model like
a failing test.

Forms read: those solve reads (docstring_examples/parse.py: `f(x) -> y`, doctest lines,
...), and, for a function with one parameter, bare `input -> output` pairs of literals. Only top-level
functions of non-test Python files are checked. The checks run in the sandbox, through the
same shell tool as the tests: the code is the model's.
"""

from __future__ import annotations

import ast
import re

from codeloop import jsonsafe
from codeloop.docstring_examples.parse import parse_examples
from codeloop.jobs.edit_engine.sandbox_script import python_command
from codeloop.jobs.request_files import is_test_path

_LITERAL = r"""(?:[-+]?\d+(?:\.\d+)?|'[^'\n]*'|"[^"\n]*"|\[[^\]\n]*\]|\([^)\n]*\)|True|False|None)"""
_BARE_PAIR = re.compile(rf"(?<![\w.)\]])(?P<arg>{_LITERAL})\s*(?:->|=>|→|➞)\s*(?P<value>{_LITERAL})")
MAX_CHECKS = 20
MAX_REPORTED = 5

# Run in the sandbox: import each module, evaluate each check, print one JSON line a failure
# and a last line saying the checks ran to the end. BaseException: a module that calls
# sys.exit() on import fails its examples; it must not end the run and read as "all hold".
_DONE = "codeloop-docstring-checks-done"
_RUNNER = """
import importlib, json, sys
sys.path.insert(0, '.')
for module, name, call, expected in json.loads(sys.argv[1]):
    try:
        scope = vars(importlib.import_module(module))
        got = eval(call, scope)
        want = eval(expected, scope)
    except BaseException as exc:
        print(json.dumps([call, expected, f"{type(exc).__name__}: {exc}"]))
        continue
    if got != want:
        print(json.dumps([call, expected, repr(got)]))
print(json.dumps(["@DONE@"]))
""".replace("@DONE@", _DONE)


def _single_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args
    return len(args.posonlyargs) + len(args.args) == 1 and not args.vararg


def _checks_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    """(call, expected) pairs from a function's docstring."""
    doc = ast.get_docstring(node) or ""
    pairs: list[tuple[str, str]] = []
    for assertion in parse_examples(doc, node.name):
        try:
            tree = ast.parse(assertion, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0],
                                                                                ast.Eq):
            pairs.append((ast.unparse(tree.left), ast.unparse(tree.comparators[0])))
    if not pairs and _single_parameter(node):
        for match in _BARE_PAIR.finditer(doc):
            try:
                ast.literal_eval(match["arg"])
                ast.literal_eval(match["value"])
            except (ValueError, SyntaxError):
                continue
            pairs.append((f"{node.name}({match['arg']})", match["value"]))
    return pairs


def docstring_checks(before: dict[str, str], after: dict[str, str]) -> list[list[str]]:
    """[module, function, call, expected] for the docstring examples of each top-level
    function whose code the edit changed (or made)."""
    checks: list[list[str]] = []
    for path, source in after.items():
        if not path.endswith(".py") or is_test_path(path) or before.get(path) == source:
            continue
        try:
            tree = ast.parse(source)
            old = {n.name: ast.get_source_segment(before[path], n) for n in
                   ast.parse(before.get(path, "")).body
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        except (SyntaxError, ValueError, RecursionError):
            continue
        module = path.removesuffix(".py").replace("/", ".")
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if old.get(node.name) == ast.get_source_segment(source, node):
                continue
            checks += [[module, node.name, call, want] for call, want in _checks_of(node)]
    return checks[:MAX_CHECKS]


def check_command(checks: list[list[str]]) -> str:
    """The shell command that runs the checks (the payload base64-encoded: no quoting)."""
    return python_command("checks", _RUNNER, [[m, n, c, e] for m, n, c, e in checks])


def failures_text(output: str) -> str:
    """The failed examples, as lines for the model; "" when every example held. `output` is
    the shell tool's report (its JSON lines in stdout)."""
    lines, done = [], False
    for raw in output.splitlines():
        try:
            record = jsonsafe.loads(raw)
        except ValueError:  # the model's code prints here too
            continue
        if record == [_DONE]:
            done = True
        elif isinstance(record, list) and len(record) == 3:
            call, expected, got = record
            lines.append(f"- {call} should be {expected} (its docstring says so); it gives {got}")
    if not done:  # os._exit, a crash, a kill, or more output than the sandbox keeps
        lines.append("- the checks did not run to the end: importing or calling the code "
                     "ended the process (or printed more than the sandbox keeps)")
    if not lines:
        return ""
    shown = lines[:MAX_REPORTED]
    return ("The tests pass, but examples in the docstrings of the functions you changed do "
            "not hold:\n" + "\n".join(shown))


def failed_examples(box, before: dict[str, str], after: dict[str, str]) -> str:
    """Run the docstring examples of the changed functions through `box`'s shell tool (the
    sandbox); the failures as text for the model, "" when there are none to run or all hold."""
    checks = docstring_checks(before, after)
    if not checks:
        return ""
    outcome = box.run("run_bash_command", {"command": check_command(checks)})
    return failures_text(outcome.output)
