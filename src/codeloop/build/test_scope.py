"""Is a task's test file within its task? Checked statically against the task's contract
(contract.py) before any code is asked for: a test that needs what no task has built yet
never passes, and the fix loop would change right code until its budget ran out (the 1.5B's
tests of the todo data model POSTed to an endpoint a later task was to build).

Python test files are read with `ast`, never run. Each problem is one line naming the line
of the test and exactly what is out of scope, and which task builds it when one does:

- an import of a module under the source package that is neither this task's nor on main
  (built by the scaffold or a merged task), or of a name that module does not hold;
- an import of a package that is neither the standard library nor the stack's;
- an HTTP call (`client.post("/todos")`) to a route that neither this task builds nor the
  code on main serves;
- a file that does not parse, holds no test, or never touches what the task builds.

`prune` drops what is out of scope (the imports and every test that uses them) when the
model's rewrites still hold some: the tests that are left are the task's own.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from codeloop.build.contract import (
    HTTP_METHODS,
    TaskContract,
    is_test_module,
    module_of,
    normal_path,
    path_of,
)
from codeloop.build.test_misuse import misuse
from codeloop.quality.lint import lint_code


@dataclass(frozen=True)
class ScopeProblem:
    line: int  # 1-based; 0 for the whole file
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text}" if self.line else self.text


def scope_problems(source: str, contract: TaskContract, tree: Path) -> list[ScopeProblem]:
    """What in the test file `source` is outside the task (empty: all in scope)."""
    if contract.language != "python":
        return []  # JS and Go tests are judged by their run alone
    try:
        parsed = ast.parse(source)
    except SyntaxError as exc:
        return [ScopeProblem(exc.lineno or 0, f"the file does not parse: {exc.msg}")]
    except (ValueError, MemoryError, RecursionError) as exc:
        return [ScopeProblem(0, f"the file does not parse: {exc}")]
    problems: list[ScopeProblem] = []
    touches_own = False
    problems += [ScopeProblem(line, text) for line, text in misuse(parsed, contract, tree)]
    for node in ast.walk(parsed):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found, own = _import_problems(node, contract, tree)
            problems += found
            touches_own = touches_own or own
        elif isinstance(node, ast.Call):
            endpoint = _endpoint(node)
            if endpoint is None:
                continue
            found, own = _endpoint_problem(endpoint, node.lineno, contract)
            problems += found
            touches_own = touches_own or own
    problems += _undefined_names(source, contract.test_path)
    if not collected_tests(parsed):
        problems.append(ScopeProblem(0, "the file holds no test (a function named test_...)"))
    elif contract.modules_named and not touches_own:
        problems.append(ScopeProblem(0, f"the tests never import {_own(contract)}, what task "
                                        f"{contract.task_id} builds"))
    return problems


def _undefined_names(source: str, path: str) -> list[ScopeProblem]:
    """A name the tests use that nothing defines (ruff's F821): such a test never passes,
    whatever the code (the 1.5B's test of a model used a variable of the test before it)."""
    report = lint_code(source, Path(path).name, pylint=False)
    return [ScopeProblem(f.line, f"{f.message}: a name the test uses that nothing defines")
            for f in report.ruff if f.code == "F821"]


def _own(contract: TaskContract) -> str:
    return ", ".join(module_of(p) for p in contract.modules)


def collected_tests(parsed: ast.Module) -> list[ast.stmt]:
    """The top-level tests pytest collects: functions named test... that are no fixture,
    classes named Test... holding one. Measured on the 1.5B (shortener S3, stop 65): its
    test file held only a fixture named `test_client`, counted as a test, and the task
    merged checked by nothing, its `add` raising on every call."""
    return [n for n in parsed.body if _is_test_function(n) or (
        isinstance(n, ast.ClassDef) and n.name.startswith("Test")
        and any(_is_test_function(m) for m in n.body))]


def _is_test_function(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and node.name.startswith("test") and not any(
            "fixture" in ast.unparse(d) for d in node.decorator_list)


def holds_tests(source: str | None) -> bool:
    """Whether a test file's text parses and holds a test pytest collects."""
    try:
        return bool(collected_tests(ast.parse(source or "")))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False


# ---------------------------------------------------------------------------- imports
def _import_problems(node: ast.Import | ast.ImportFrom, contract: TaskContract,
                     tree: Path) -> tuple[list[ScopeProblem], bool]:
    """The problems of one import statement, and whether it imports the task's own code."""
    if isinstance(node, ast.ImportFrom) and node.level:
        return [], False  # from . import x: the tests' own package
    package = contract.src_dir.replace("/", ".")
    if isinstance(node, ast.Import):
        targets = [(a.name, []) for a in node.names]
    else:
        module = node.module or ""
        names = [a.name for a in node.names if a.name != "*"]
        # `from app import models` may name a submodule
        subs = [n for n in names if f"{module}.{n}".replace(".", "/") + ".py"
                in contract.built or path_of(f"{module}.{n}") in contract.modules
                or path_of(f"{module}.{n}") in contract.later_modules]
        targets = [(module, [n for n in names if n not in subs])]
        targets += [(f"{module}.{n}", []) for n in subs]
    problems: list[ScopeProblem] = []
    own = False
    for module, names in targets:
        top = module.split(".")[0]
        if top == package:
            found, is_own = _project_import(module, names, node.lineno, contract)
            problems += found
            own = own or is_own
        elif top == "tests" or top == Path(contract.test_path).parent.name:
            if not _test_module_exists(module, contract, tree):
                problems.append(ScopeProblem(node.lineno, f"imports {module}, which is not a "
                                                          "file of the project"))
        elif not _installed(top, contract, tree):
            allowed = ", ".join(["the standard library", *contract.packages])
            problems.append(ScopeProblem(node.lineno, (
                f"imports {module}: the package {top} is not installed for the project's "
                f"tests (they may import {allowed}, and the project's own modules)")))
    return problems, own


def _project_import(module: str, names: list[str], line: int,
                    contract: TaskContract) -> tuple[list[ScopeProblem], bool]:
    path = path_of(module)
    package_init = module.replace(".", "/") + "/__init__.py"
    if path in contract.modules:
        later = [n for n in names if n in contract.later_names and n not in contract.names
                 and n not in contract.built.get(path, [])]
        return [ScopeProblem(line, f"imports {n} from {module}, but {n} is what task "
                                   f"{contract.later_names[n]} builds (not merged yet); "
                                   f"task {contract.task_id} builds only "
                                   f"{', '.join(contract.names) or _own(contract)}")
                for n in later], True
    for where in (path, package_init):
        if where in contract.built:
            have = contract.built[where]
            missing = [n for n in names if n not in have]
            by = contract.built_by.get(where, "")
            source = "the scaffold" if by == "scaffold" else f"task {by}" if by else "main"
            return [ScopeProblem(line, f"imports {n} from {module}, which has no {n} "
                                       f"({source} built it; it holds "
                                       f"{', '.join(have) or 'no public names'})")
                    for n in missing], False
    if path in contract.later_modules:
        return [ScopeProblem(line, f"imports {module}, which task "
                                   f"{contract.later_modules[path]} builds (not merged yet): "
                                   f"the tests of task {contract.task_id} may use only "
                                   f"{_usable(contract)}")], False
    if not contract.modules_named:  # the task's text names no module: the tests choose it
        return [], True
    return [ScopeProblem(line, f"imports {module}, which no merged task provides and task "
                               f"{contract.task_id} does not build (it builds "
                               f"{_own(contract)}; on main: {_usable(contract)})")], False


def _usable(contract: TaskContract) -> str:
    modules = [module_of(p) for p in sorted(contract.built)
               if not is_test_module(p) and contract.built[p]]
    return ", ".join(dict.fromkeys([*(module_of(p) for p in contract.modules), *modules]))


def _test_module_exists(module: str, contract: TaskContract, tree: Path) -> bool:
    path = path_of(module)
    return (path in contract.built or (tree / path).is_file()
            or (tree / module.replace(".", "/") / "__init__.py").is_file())


def _installed(top: str, contract: TaskContract, tree: Path) -> bool:
    return (top in sys.stdlib_module_names or top in contract.packages or top == "_pytest"
            or any((tree / deps / top).exists() for deps in (".deps",)))


def project_modules(source: str, contract: TaskContract) -> list[str]:
    """The paths of the source package's modules a test file imports (existing or not)."""
    try:
        parsed = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    package = contract.src_dir.replace("/", ".")
    found: list[str] = []
    for node in ast.walk(parsed):
        if isinstance(node, ast.Import):
            found += [path_of(a.name) for a in node.names if a.name.startswith(package + ".")]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.startswith(package + "."):
            found.append(path_of(node.module))
    return list(dict.fromkeys(found))


# ---------------------------------------------------------------------------- endpoints
def _endpoint(node: ast.Call) -> str | None:
    """"POST /todos/{}" for `client.post("/todos/" + ...)`-like calls; None otherwise."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    method = func.attr.upper()
    args = list(node.args)
    if method == "REQUEST" and len(args) >= 2 and isinstance(args[0], ast.Constant) \
            and isinstance(args[0].value, str):
        method, args = args[0].value.upper(), args[1:]
    if method not in HTTP_METHODS or not args:
        return None
    path = _path_text(args[0])
    if path is None or not path.startswith("/"):
        return None
    return f"{method} {normal_path(path)}"


def _path_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _path_text(node.left)
        return None if left is None else left + (_path_text(node.right) or "{}")
    return None


def _matches(endpoint: str, route: str) -> bool:
    method, path = endpoint.split(" ", 1)
    route_method, route_path = route.split(" ", 1)
    if method != route_method:
        return False
    got, want = path.strip("/").split("/"), route_path.strip("/").split("/")
    return len(got) == len(want) and all(
        g == w or "{" in w or "{" in g for g, w in zip(got, want, strict=True))


def _endpoint_problem(endpoint: str, line: int,
                      contract: TaskContract) -> tuple[list[ScopeProblem], bool]:
    if any(_matches(endpoint, route) for route in contract.endpoints):
        return [], True
    if any(_matches(endpoint, route) for route in contract.served):
        return [], False
    if contract.serves_http and not contract.endpoints:
        return [], True  # it builds routes its text does not spell out
    later = next((task for route, task in contract.later_endpoints.items()
                  if _matches(endpoint, route)), None)
    builds = (f"task {contract.task_id} builds only {', '.join(contract.endpoints)}"
              if contract.endpoints else f"task {contract.task_id} builds no endpoint")
    served = ", ".join(contract.served) or "none"
    who = f"task {later} builds it (not merged yet)" if later else \
        "no task merged so far serves it"
    return [ScopeProblem(line, f"calls {endpoint}: {who}, {builds} (served on main: "
                               f"{served}); test {_own(contract)} directly instead")], False


# ---------------------------------------------------------------------------- pruning
def prune(source: str, problems: list[ScopeProblem]) -> str | None:
    """`source` without the statements at the problems' lines, the test functions and
    classes holding one, and everything that uses a name those dropped; None when no test
    is left (or it does not parse)."""
    try:
        parsed = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    lines = {p.line for p in problems if p.line}
    dropped: set[ast.stmt] = set()
    gone: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in parsed.body:
            if node in dropped:
                continue
            end = node.end_lineno or node.lineno
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            uses = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if any(first <= ln <= end for ln in lines) or uses & gone:
                dropped.add(node)
                gone |= _bound(node)
                changed = True
    kept = [n for n in parsed.body if n not in dropped]
    if not collected_tests(ast.Module(body=kept, type_ignores=[])):
        return None
    text = source.splitlines()
    out = ""
    for index, node in enumerate(kept):
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        chunk = "\n".join(text[first - 1:node.end_lineno or node.lineno])
        imports = (ast.Import, ast.ImportFrom)
        joined = isinstance(node, imports) and index and isinstance(kept[index - 1], imports)
        out += ("\n" if joined else "\n\n\n" if out else "") + chunk
    return out + "\n"


def _bound(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t)
            if isinstance(n, ast.Name)}
