"""A task's contract: what it must build and what it may use, read from the task graph and
from the code on its worktree (main, as the merged tasks left it).

The 1.5B, asked for "the tests of the data model", wrote tests that POST to an endpoint a
later task was to build, and the fix loop then changed right code until its budget ran out.
The contract is what its tests are asked for from, and checked against (test_scope.py):

- `modules`: the module(s) the task provides: the ones its text names under the source
  package (`app.models`, `app/models.py`) that main does not hold yet, else its keyword's;
- `names`: the code names its text gives (`TodoIn`, `class TodoStore`, `named router`);
- `endpoints`: the HTTP routes its text names (`POST /todos`);
- `built`: every module on the worktree with its top-level names, `served` the routes the
  code there registers: what the scaffold and the merged tasks provide;
- `later_*`: what the tasks not merged yet will provide, so a problem can say which task.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import keyword
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
_ENDPOINT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\s+(/[^\s,;()'\"]*)")
# "class X", "named X", and "a function named X" (whose name is X, not "named")
_NAMED = re.compile(r"\b(?:class|function|def|named|called)\s+(?:(?:named|called)\s+)?"
                    r"`?([A-Za-z_][A-Za-z0-9_]*)")
_CAMEL = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b")
_CALLED = re.compile(r"(?<![.\w])([a-z_][a-z0-9_]*)\(")  # add(TodoIn), not re.sub( or .strip(
_HTTP_WORDS = re.compile(r"\b(endpoints?|routes?|router|HTTP)\b")
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")
_PYDANTIC = re.compile(r"\b(pydantic|BaseModel)\b")
_DESCRIBED = re.compile(r"\b([A-Z][A-Za-z0-9]*)\s+\(")
_CLASS_CALLED = re.compile(r"\b([A-Z][A-Za-z0-9]*)\s*\(")  # "Todo (TodoIn with an id)"
MAX_MODULE_BYTES = 200_000  # a bigger module on main is listed by name, not parsed


@dataclass(frozen=True)
class TaskContract:
    task_id: str
    language: str
    src_dir: str
    test_path: str
    modules: list[str]  # relative paths this task provides
    modules_named: bool  # True when the task's text names them (not guessed from a keyword)
    names: list[str]
    endpoints: list[str]  # "POST /todos"
    serves_http: bool  # it builds routes (named or not)
    built: dict[str, list[str]]  # module path on the worktree -> its top-level names
    built_by: dict[str, str]  # module path -> "scaffold" or the merged task that made it
    served: list[str]  # routes registered by the code on the worktree
    packages: tuple[str, ...] = ()  # third-party packages the stack installs
    later_modules: dict[str, str] = field(default_factory=dict)  # path -> task id
    later_names: dict[str, str] = field(default_factory=dict)
    later_endpoints: dict[str, str] = field(default_factory=dict)
    models: tuple[str, ...] = ()  # pydantic model classes: the task's own and those on main

    def module_name(self, path: str) -> str:
        return module_of(path)

    def as_prompt(self) -> dict[str, Any]:
        """The values the tests-first prompt shows."""
        return {"modules": [module_of(p) for p in self.modules], "names": self.names,
                "endpoints": self.endpoints,
                "built": [{"module": module_of(p), "names": names,
                           "by": self.built_by.get(p, "")}
                          for p, names in sorted(self.built.items())
                          if p not in self.modules and not is_test_module(p)],
                "served": self.served, "packages": list(self.packages),
                "models": list(self.models)}


def module_of(path: str) -> str:
    """app/models.py -> app.models; app/__init__.py -> app. Any other file (src/Counter.jsx,
    internal/total/total.go) is named by its path: a dotted name would be no file at all."""
    if not path.endswith(".py"):
        return path
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def path_of(module: str) -> str:
    return module.replace(".", "/") + ".py"


def is_test_module(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return path.startswith("tests/") or name.startswith("test_") or name == "conftest.py"


def task_text(task: dict[str, Any]) -> str:
    return f"{task.get('description', '')}\n{task.get('implementation_details', '')}"


def named_modules(text: str, src_dir: str, suffix: str = ".py") -> list[str]:
    """Module paths under `src_dir` that `text` names, dotted or as paths, in order."""
    package = re.escape(src_dir.strip("/").replace("/", "."))
    found: list[str] = []
    # not `app.include_router(router)`: a call on an object named like the package
    for match in re.finditer(rf"\b{package}\.([A-Za-z_][A-Za-z0-9_]*)\b(?!\()", text):
        found.append(f"{src_dir.strip('/')}/{match.group(1)}{suffix}")
    for match in re.finditer(rf"\b{re.escape(src_dir.strip('/'))}/([\w/]+{re.escape(suffix)})",
                             text):
        found.append(f"{src_dir.strip('/')}/{match.group(1)}")
    return list(dict.fromkeys(found))


def named_names(text: str, library: frozenset[str] = frozenset()) -> list[str]:
    """The code names a task's text gives: after class/function/named, CamelCase words and
    the calls it spells (`add(TodoIn)`); not a builtin, a keyword or a `library` name
    (pydantic's BaseModel is what the task uses, not what it provides)."""
    names = [m.group(1) for m in _NAMED.finditer(text)]
    names += [m.group(1) for m in _CAMEL.finditer(text)]
    names += [m.group(1) for m in _CALLED.finditer(text)]
    return list(dict.fromkeys(
        n for n in names if not n.startswith("_") and n not in library
        and not keyword.iskeyword(n) and not hasattr(builtins, n)))


@cache
def library_names(packages: tuple[str, ...]) -> frozenset[str]:
    """The public names of the installed `packages` (those the stack's tests may import)."""
    names: set[str] = set()
    for package in packages:
        if importlib.util.find_spec(package) is None:
            continue
        try:
            module = importlib.import_module(package)
        except Exception:  # noqa: BLE001, S112 - a broken install only lists no names
            continue
        names.update(n for n in dir(module) if not n.startswith("_"))
        # A model's own methods (`model_copy(update=...)` in a task's details is a call the
        # task makes, not a name it builds).
        base = getattr(module, "BaseModel", None)
        if isinstance(base, type):
            names.update(n for n in dir(base) if n.startswith("model_"))
    return frozenset(names)


def stack_packages(stack: Any) -> tuple[str, ...]:
    """The packages a Python stack's requirements name (and pydantic, which FastAPI is
    built on), as import names."""
    lines = str(stack.config_files.get("requirements.txt", "")).splitlines()
    names = [re.split(r"[<>=!~\[; ]", line.strip(), maxsplit=1)[0].replace("-", "_")
             for line in lines if line.strip() and not line.lstrip().startswith("#")]
    extra = ["pydantic", "starlette"] if "fastapi" in names else []
    return tuple(dict.fromkeys(n.lower() for n in names + extra if n))


def named_endpoints(text: str) -> list[str]:
    return list(dict.fromkeys(f"{m.group(1)} {normal_path(m.group(2))}"
                              for m in _ENDPOINT.finditer(text)))


def route_shape(path: str) -> str:
    """A route's path as the contract compares them: normal, each parameter `{}`."""
    return re.sub(r"\{[^}]*\}", "{}", normal_path(path))


def normal_path(path: str) -> str:
    """/todos/ -> /todos; the query string dropped."""
    path = path.split("?", 1)[0].rstrip(".")
    return "/" + path.strip("/") if path != "/" else "/"


def python_modules(tree: Path, src_dir: str, files: list[str]) -> dict[str, list[str]]:
    """Each Python module on the worktree (the source package and the tests) with its
    top-level names (a module that does not parse: no names)."""
    out: dict[str, list[str]] = {}
    for path in files:
        if not path.endswith(".py") or not path.startswith((src_dir + "/", "tests/")):
            continue
        out[path] = sorted(n for n in module_names(read_module(tree / path) or "")
                           if not n.startswith("_"))
    return out


def module_names(source: str) -> set[str]:
    """What `from module import name` finds at a module's top level: its functions,
    classes, assigned names and imports (none when it does not parse)."""
    try:
        parsed = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    names: set[str] = set()
    for node in parsed.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def served_routes(tree: Path, modules: list[str]) -> list[str]:
    """The routes the code registers: `@x.get("/p")` decorators, under the prefix of an
    `APIRouter(prefix=...)` made in the same module."""
    routes: list[str] = []
    for path in modules:
        source = read_module(tree / path)
        try:
            parsed = ast.parse(source or "")
        except (SyntaxError, ValueError):
            continue
        prefix = ""
        for node in ast.walk(parsed):
            if isinstance(node, ast.Call) and callee(node) == "APIRouter":
                for kw in node.keywords:
                    if kw.arg == "prefix" and isinstance(kw.value, ast.Constant) \
                            and isinstance(kw.value.value, str):
                        prefix = kw.value.value
        routes += [f"{method} {normal_path(prefix + path)}"
                   for method, path, _ in route_decorators(parsed)]
    return list(dict.fromkeys(routes))


def route_decorators(tree: ast.Module) -> list[tuple[str, str, int]]:
    """(method, path, line) of each `@<app or router>.<method>("path")` over a function."""
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) \
                    and deco.func.attr.upper() in HTTP_METHODS and deco.args \
                    and isinstance(deco.args[0], ast.Constant) \
                    and isinstance(deco.args[0].value, str):
                found.append((deco.func.attr.upper(), deco.args[0].value, deco.lineno))
    return found


def pydantic_models(tree: Path, paths: list[str]) -> set[str]:
    """The classes of the modules at `paths` that are pydantic models: based on BaseModel,
    or on a class found so (across the modules, until nothing new is found)."""
    classes: list[ast.ClassDef] = []
    for path in paths:
        try:
            parsed = ast.parse(read_module(tree / path) or "")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        classes += [n for n in parsed.body if isinstance(n, ast.ClassDef)]
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in classes:
            bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                     for b in node.bases}
            if node.name not in found and bases & (found | {"BaseModel"}):
                found.add(node.name)
                changed = True
    return found


def own_models(text: str, library: frozenset[str]) -> set[str]:
    """The classes a task's text asks for as pydantic models: the capitalised names
    (`TodoIn`, and `Todo (TodoIn with an integer id)`) of its sentences that say pydantic
    (not `inventory = Inventory()` or `409 on OutOfStock` in another sentence)."""
    names: set[str] = set()
    described: set[str] = set()  # `Item (ItemIn with an id)`: the task's own, even if pytest
    for sentence in _SENTENCE.split(text):  # exports an Item too (not `Field(...)`, a call)
        if _PYDANTIC.search(sentence):
            names |= {m.group(1) for m in _CAMEL.finditer(sentence)}
            names |= {m.group(1) for m in _CLASS_CALLED.finditer(sentence)}
            described |= {m.group(1) for m in _DESCRIBED.finditer(sentence)}
    return {n for n in names if (n not in library or n in described)
            and not hasattr(builtins, n)}


def _on_main(name: str, built: dict[str, list[str]], own: list[str]) -> bool:
    """A name a module on main (not the task's own) already holds: the task uses it."""
    return any(name in names for path, names in built.items() if path not in own)


def callee(node: ast.expr) -> str:
    """The name a call calls (`FastAPI()`, `fastapi.FastAPI()`), else "" (no call)."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def read_module(path: Path) -> str | None:
    """A module's text; None for a link, a file over MAX_MODULE_BYTES or one unread."""
    try:
        if path.is_symlink() or path.stat().st_size > MAX_MODULE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def task_contract(task: dict[str, Any], others: list[dict[str, Any]], merged: list[str],
                  stack: Any, tree: Path, files: list[str], test_path: str) -> TaskContract:
    """The contract of `task` on its worktree `tree` (holding `files`); `others`: the graph's
    other tasks, `merged`: the ids of those on main."""
    language, src_dir = stack.language, stack.src_dir.strip("/")
    suffix = {"python": ".py", "javascript": ".js", "go": ".go"}.get(language, ".py")
    if test_path.endswith(".jsx"):
        suffix = ".jsx"
    text = task_text(task)
    library = library_names(stack_packages(stack)) if language == "python" else frozenset()
    built = python_modules(tree, src_dir, files) if language == "python" else {
        p: [] for p in files if p.startswith(src_dir + "/")}
    mentioned = named_modules(text, src_dir, suffix)
    own = [p for p in mentioned if p not in built] or mentioned
    modules_named = bool(own)
    if not own:
        keyword = next((k for k in task.get("keywords") or []
                        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", k)), "")
        name = (keyword or task["id"]).lower()
        # a Go package is a directory: internal/total/total.go
        own = [f"{src_dir}/{name}/{name}{suffix}" if language == "go"
               else f"{src_dir}/{name}{suffix}"]
    endpoints = named_endpoints(text)
    built_by = {p: "scaffold" for p in built}
    later_modules: dict[str, str] = {}
    later_names: dict[str, str] = {}
    later_endpoints: dict[str, str] = {}
    for other in others:
        other_text = task_text(other)
        paths = named_modules(other_text, src_dir, suffix)
        if other["id"] in merged:
            for path in paths:
                if path in built:
                    built_by[path] = other["id"]
            continue
        for path in paths:
            if path not in built and path not in own:
                later_modules.setdefault(path, other["id"])
        for name in named_names(other_text, library):
            later_names.setdefault(name, other["id"])
        for endpoint in named_endpoints(other_text):
            later_endpoints.setdefault(endpoint, other["id"])
    served = served_routes(tree, [p for p in built if not is_test_module(p)]) \
        if language == "python" else []
    return TaskContract(
        task_id=task["id"], language=language, src_dir=src_dir, test_path=test_path,
        modules=own, modules_named=modules_named,
        names=[n for n in dict.fromkeys([*named_names(text, library),
                                         *sorted(own_models(text, library))])
               if not _on_main(n, built, own)],
        endpoints=endpoints, serves_http=bool(endpoints or _HTTP_WORDS.search(text)),
        built=built, built_by=built_by, served=served,
        packages=stack_packages(stack) if language == "python" else (), later_modules=later_modules,
        later_names=later_names, later_endpoints=later_endpoints,
        models=tuple(sorted(own_models(text, library) | pydantic_models(
            tree, [p for p in built if not is_test_module(p)])))
        if language == "python" else ())
