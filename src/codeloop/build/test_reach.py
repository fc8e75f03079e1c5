"""What each test of a task's file reaches: a test that never touches what the task builds,
and a statement that runs when the file is imported, outside every test.

Measured on the 1.5B (build benchmark at 4c7423d, shortener S3, the link store): its test file
imported LinkStore, then called `app.include_router(LinkStore.router)` at the top level and
held two tests of 62 asserts each of encode and decode, which an earlier task built and
tested. The file failed to collect (LinkStore has no router), the code rounds changed the
store that nothing tested, and the task was blocked at the cap. Each such test, and each
such statement, is named on its line, so the rewrite is told and `prune` can drop them.
"""

from __future__ import annotations

import ast

from codeloop.build.contract import TaskContract, module_of
from codeloop.build.fixture_requests import fixtures as file_fixtures

Problem = tuple[int, str]  # (line, what is wrong)

def reach_problems(parsed: ast.Module, contract: TaskContract) -> list[Problem]:
    """Neither is judged for a task that serves HTTP: its tests set up an app with the
    router at the top (`app.include_router(router)`) and reach the task through routes."""
    if contract.serves_http or contract.endpoints:
        return []
    return _import_time_calls(parsed, contract) + _tests_of_others(parsed, contract)


def _import_time_calls(parsed: ast.Module, contract: TaskContract) -> list[Problem]:
    """A call on the project's code at the top level of the test file, as a statement of its
    own: it runs when pytest imports the file, and when it raises no test of the file runs
    at all (a call of the standard library's, `time.sleep(1)`, is the file's business)."""
    project = _project_names(parsed, contract)
    problems: list[Problem] = []
    for node in parsed.body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        if not {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & project:
            continue
        problems.append((node.lineno, (
            f"`{_short(node.value)}` runs when the file is imported, outside every test: "
            "when it raises, no test of the file runs; do it inside a test or a fixture, "
            "or leave it out")))
    return problems


def _tests_of_others(parsed: ast.Module, contract: TaskContract) -> list[Problem]:
    """A test function that uses none of the names the file imports from the task's own
    modules (directly or through the fixtures it asks for): it tests what earlier tasks
    built, whose own tests cover it."""
    own_modules = {module_of(p) for p in contract.modules}
    own_names = {(a.asname or a.name) for n in parsed.body if isinstance(n, ast.ImportFrom)
                 and not n.level and n.module in own_modules for a in n.names}
    if not own_names:
        return []  # the file-level check names a file that never imports the task
    fixtures = file_fixtures(parsed)
    helpers = {n.name: n for n in parsed.body
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and n.name not in fixtures}
    globals_ = {t.id: n for n in parsed.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Name)}
    problems: list[Problem] = []
    for node in parsed.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or not node.name.startswith("test") or node.name in fixtures:
            continue
        used = _reached(node, {**fixtures, **helpers, **globals_})
        if used & own_names:
            continue
        others = sorted(used & _project_names(parsed, contract))
        what = f" (it uses {', '.join(others)})" if others else ""
        problems.append((node.lineno, (
            f"{node.name} tests nothing task {contract.task_id} builds{what}: every test "
            f"uses {', '.join(sorted(own_names))}; what earlier tasks built has its own "
            "tests")))
    return problems


def _reached(node: ast.AST, definitions: dict[str, ast.AST]) -> set[str]:
    """The names `node` reads, with those of the file's fixtures, helpers and top-level
    values it reaches (by name or as a parameter), transitively."""
    seen: set[str] = set()
    pending = [node]
    names: set[str] = set()
    while pending:
        current = pending.pop()
        found = {n.id for n in ast.walk(current) if isinstance(n, ast.Name)}
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found |= {a.arg for a in current.args.args}
        names |= found
        for name in found - seen:
            seen.add(name)
            if name in definitions and definitions[name] is not current:
                pending.append(definitions[name])
    return names


def _project_names(parsed: ast.Module, contract: TaskContract) -> set[str]:
    package = contract.src_dir.strip("/").replace("/", ".")
    return {(a.asname or a.name) for n in parsed.body if isinstance(n, ast.ImportFrom)
            and not n.level and n.module and n.module.split(".")[0] == package
            for a in n.names}


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
