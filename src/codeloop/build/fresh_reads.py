"""A task's test that reads a new object nothing wrote to, and fails because it answered empty,
is wrong whatever the code: it goes, and the code rounds are not spent on it.

Measured on the 1.5B (build benchmark at 4c7423d, notes N3, the note store): three of its
four tests took a new `NoteStore()` from a fixture and asserted `store.get(1) == note`,
`store.by_slug("test-note") == note` and `len(store.search("test")) > 0` without adding a
note first. The code was right; four code rounds and a retry changed it, a test repair sent
the file back unchanged, and the task was blocked at the benchmark's cap with the task after
it. pytest builds a fixture anew for each test, so such a test reads an empty store.

A test is dropped only when all of these hold, read from the file and from pytest's report:
- it takes an object of a class the task builds, new and without arguments (`Store()`, from
  a fixture that returns it, or built in the test), and no other fixture it asks for uses
  that one;
- it calls on that object only methods the file never calls as a statement of their own
  (the file's writers, `store.add(note)`, whose result is not used), uses it no other way,
  and the file has such a writer;
- it fails on an assert where pytest shows a call that answered empty (`where None =
  get(1)`, `where 0 = len([])`, `where [] = search('x')`): the test expected what the new
  object cannot hold. An exception from the code is the code's to fix: never dropped.
At least one test of the file is kept, and the progress line names each dropped test.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from codeloop.build.contract import module_of
from codeloop.build.fixture_requests import fixtures as file_fixtures
from codeloop.jobs.edit_engine.api import Check
from codeloop.jobs.edit_engine.failing_new_tests import failing_tests, without_functions

_SECTION = re.compile(r"^_{3,} (\w+)(?:\[[^\]\n]*\])? _{3,}$", re.MULTILINE)
_EMPTY_ANSWER = re.compile(r"^E\s+\+\s+where (None|\[\]|\{\}|0|False|''|\"\"|set\(\)|\(\)) = ",
                           re.MULTILINE)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def fresh_reads(source: str, own_modules: set[str]) -> set[str]:
    """The test functions of `source` that read a new object of the task's without writing
    to it (the static half of the rule in the module docstring)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    own = {(a.asname or a.name) for n in tree.body if isinstance(n, ast.ImportFrom)
           and not n.level and n.module in own_modules for a in n.names}
    writers = {n.value.func.attr for n in ast.walk(tree) if isinstance(n, ast.Expr)
               and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)}
    if not own or not writers:
        return set()
    fixtures = file_fixtures(tree)
    found: set[str] = set()
    for node in tree.body:
        if not isinstance(node, _FUNCTIONS) or not node.name.startswith("test") \
                or node.name in fixtures:
            continue
        receivers = _fresh_receivers(node, fixtures, own)
        if receivers and all(_only_reads(node, name, writers) for name in receivers):
            found.add(node.name)
    return found


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in node.args.args]


def _new_own(value: ast.expr | None, own: set[str]) -> bool:
    """`value` is `Own()`: a class of the task's, built without arguments."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id in own and not value.args and not value.keywords


def _fresh_receivers(node: ast.FunctionDef | ast.AsyncFunctionDef,
                     fixtures: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
                     own: set[str]) -> list[str]:
    """The names in `node` bound to a new object of the task's: a parameter whose fixture
    returns one (and that no other fixture of the test asks for), or a local built so."""
    names: list[str] = []
    params = _parameters(node)
    for param in params:
        fixture = fixtures.get(param)
        if fixture is None or len(fixture.body) != 1:
            continue
        statement = fixture.body[0]
        value = statement.value if isinstance(statement, ast.Return) else \
            statement.value.value if isinstance(statement, ast.Expr) and isinstance(
                statement.value, ast.Yield) else None
        shared = any(param in _parameters(fixtures[p]) for p in params
                     if p in fixtures and p != param)
        if _new_own(value, own) and not shared:
            names.append(param)
    for inner in ast.walk(node):
        if isinstance(inner, ast.Assign) and len(inner.targets) == 1 \
                and isinstance(inner.targets[0], ast.Name) and _new_own(inner.value, own):
            names.append(inner.targets[0].id)
    return names


def _only_reads(node: ast.AST, name: str, writers: set[str]) -> bool:
    """Every use of `name` in `node` is a call of a method that is not a writer."""
    calls = {id(n.func.value): n.func.attr for n in ast.walk(node)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id == name}
    uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name
            and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(id(u) in calls and calls[id(u)] not in writers for u in uses)


def answered_empty(output: str) -> set[str]:
    """The failing tests in pytest's report whose failure shows a call that answered empty
    and raised nothing (the dynamic half of the rule)."""
    found: set[str] = set()
    sections = list(_SECTION.finditer(output))
    for index, match in enumerate(sections):
        end = sections[index + 1].start() if index + 1 < len(sections) else len(output)
        body = output[match.end():end]
        if _EMPTY_ANSWER.search(body) and re.search(r"^E\s+(AssertionError: )?assert ",
                                                    body, re.MULTILINE):
            found.add(match.group(1))
    return found


class WithoutWrongReads:
    """An edit site that, when a check fails, drops the task's tests that read a new object
    nothing wrote to and found it empty, and checks again; the rest is `inner`'s. `raw`
    writes the test file (the stack's site: path guard, commit)."""

    def __init__(self, inner, raw, test_path: str, own_modules: list[str],
                 say: Callable[[str], None] | None = None) -> None:
        self.inner, self.raw, self.test_path = inner, raw, test_path
        self.own_modules = {module_of(p) for p in own_modules}
        self.say = say
        self.dropped: list[str] = []

    def prepare(self, path: str, text: str) -> tuple[str, list[str]]:
        return self.inner.prepare(path, text) if hasattr(self.inner, "prepare") \
            else (text, [])

    def write(self, path: str, text: str) -> str | None:
        return self.inner.write(path, text)

    def check(self) -> Check | None:
        check = self.inner.check()
        if check is None or check.passed or not self.test_path.endswith(".py"):
            return check
        text = self.raw.read(self.test_path)
        failing = failing_tests(check.output).get(self.test_path, set())
        wrong = failing & answered_empty(check.output) & fresh_reads(text or "",
                                                                     self.own_modules)
        if not wrong or text is None:
            return check
        pruned = without_functions(text, wrong, keep_one=True)
        if pruned is None or self.raw.write(self.test_path, pruned) is not None:
            return check
        self.dropped += sorted(wrong)
        if self.say is not None:
            self.say(f"dropped {', '.join(sorted(wrong))} from {self.test_path}: each reads "
                     "a new object nothing was added to and expected it to hold something")
        return self.inner.check()
