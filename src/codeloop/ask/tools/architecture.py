"""Tool 4, `generate_architecture_map(path)`: the modules, what each imports, and the entry
points.

Python files are parsed with `ast` (never imported or run): their imports are resolved to
the repository's own modules where they name one (relative imports included), the rest are
external. JavaScript/TypeScript relative imports and Go imports are read with patterns.
`fan_in` (how many of the repository's modules import a file) says which files are central:
read_source_files reads those first.
"""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from collections import defaultdict
from pathlib import Path, PurePosixPath
from typing import Any

from codeloop import jsonsafe
from codeloop.ask.tools.manifests import ManifestScope
from codeloop.ask.tools.setup_py import setup_py_metadata
from codeloop.ask.tools.walk import RepoIndex, as_index

_JS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
_JS_IMPORT = re.compile(r"""(?:import\s[^'"]*?from\s*|import\s*|require\s*\(\s*)['"]([^'"]+)['"]""")
_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:\w+\s+)?"([^"]+)"', re.MULTILINE)
_MAX_MODULES = 600


def python_module_name(rel: str) -> str:
    """`src/pkg/mod.py` -> `src.pkg.mod`; `pkg/__init__.py` -> `pkg`."""
    parts = list(PurePosixPath(rel).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class ModuleResolver:
    """Python import names -> repository files, by the longest dotted suffix that names a
    module: `codeloop.llm.base` finds `src/codeloop/llm/base.py`."""

    def __init__(self, files: list[str], root_name: str = "") -> None:
        self._by_suffix: dict[str, list[str]] = defaultdict(list)
        packages = {rel.rsplit("/", 1)[0] for rel in files if rel.endswith("/__init__.py")}
        # A repository that is itself a package (`codeloop/llm` asked about alone): its
        # modules are named from the package, as the code imports them (`llm.base`).
        prefix = [root_name] if root_name and "__init__.py" in files else []
        self._prefixed = bool(prefix)
        for rel in files:
            if rel.endswith(".py"):
                parts = prefix + python_module_name(rel).split(".")
                parts = [p for p in parts if p]
                for i in range(len(parts)):
                    # `llm.base` is no name for src/codeloop/llm/base.py: codeloop/ is a
                    # package, so the import must start at `codeloop` (or at `src`).
                    if i == 0 or "/".join(parts[len(prefix):i]) not in packages:
                        self._by_suffix[".".join(parts[i:])].append(rel)

    def resolve(self, name: str) -> str | None:
        candidates = self._by_suffix.get(name, [])
        parts = name.split(".")
        while not candidates and len(parts) > 2:  # `codeloop.llm.base` in a checkout of llm/
            parts = parts[1:]
            if self._prefixed:
                candidates = self._by_suffix.get(".".join(parts), [])
        if not candidates:
            return None
        return min(candidates, key=lambda rel: (len(rel), rel))  # the shortest, deterministic


def python_imports(source: str, rel: str) -> tuple[list[str], list[str], bool]:
    """(absolute import names, top-level names defined, has `if __name__ == "__main__"`);
    relative imports are made absolute from the file's own package. SyntaxError propagates."""
    tree = ast.parse(source, rel)
    package = python_module_name(rel).split(".")
    if not rel.endswith("__init__.py"):
        package = package[:-1]
    imports: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            imports.append(module)
            imports += [f"{module}.{alias.name}" for alias in node.names if alias.name != "*"]
    defines = list(dict.fromkeys(
        n.name for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))))
    defines.sort(key=lambda name: name.startswith("_"))  # public names first, in file order
    main_guard = any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)
                     for n in tree.body)
    return imports, defines, main_guard


def generate_architecture_map(path: str | Path | RepoIndex) -> dict[str, Any]:
    """{modules: [{path, module, imports (repo files), external (top-level names), defines,
    fan_in, lines}], entry_points: [{path, kind, detail}], edges, parse_errors}.
    `path`: the repository's directory, or its RepoIndex."""
    index = as_index(path)
    resolver = ModuleResolver(index.files, index.root.name)
    modules: list[dict[str, Any]] = []
    entry_points: list[dict[str, str]] = []
    errors: list[str] = []
    for rel in index.files:
        if len(modules) >= _MAX_MODULES:
            break
        text = index.text(rel)
        if rel.endswith(".py"):
            try:
                names, defines, main_guard = python_imports(text, rel)
            except (SyntaxError, ValueError, RecursionError) as exc:
                errors.append(f"{rel}: {type(exc).__name__}")
                continue
            internal, external = _split_python(names, resolver, rel)
            if main_guard or rel.endswith("__main__.py"):
                entry_points.append({"path": rel, "kind": "main", "detail": "__main__"})
            modules.append(_module(rel, python_module_name(rel), internal, external, defines,
                                   text))
        elif rel.endswith(_JS):
            internal, external = _split_js(_JS_IMPORT.findall(text), rel, index)
            modules.append(_module(rel, rel, internal, external, [], text))
        elif rel.endswith(".go"):
            imports = _go_imports(text)
            modules.append(_module(rel, rel, [], imports, [], text))
            if re.search(r"^package main\b", text, re.MULTILINE) and re.search(r"^func main\(", text, re.MULTILINE):
                entry_points.append({"path": rel, "kind": "main", "detail": "func main"})
    fan_in: dict[str, int] = defaultdict(int)
    for module in modules:
        for target in module["imports"]:
            fan_in[target] += 1
    for module in modules:
        module["fan_in"] = fan_in.get(module["path"], 0)
    entry_points = _declared_entry_points(index, resolver) + entry_points  # declared first
    return {"modules": modules, "entry_points": entry_points,
            "edges": sum(len(m["imports"]) for m in modules), "parse_errors": errors}


def _module(rel: str, name: str, internal: list[str], external: list[str],
            defines: list[str], text: str) -> dict[str, Any]:
    return {"path": rel, "module": name, "imports": internal, "external": external,
            "defines": defines, "fan_in": 0, "lines": text.count("\n") + 1}


def _split_python(names: list[str], resolver: ModuleResolver, rel: str
                  ) -> tuple[list[str], list[str]]:
    internal: list[str] = []
    external: list[str] = []
    for name in names:
        target = resolver.resolve(name)
        if target is not None:
            if target != rel and target not in internal:
                internal.append(target)
        elif name and resolver.resolve(name.rsplit(".", 1)[0]) is None:
            top = name.split(".")[0]
            if top and top not in external:
                external.append(top)
    return internal, external


def _split_js(specs: list[str], rel: str, index: RepoIndex) -> tuple[list[str], list[str]]:
    internal: list[str] = []
    external: list[str] = []
    base = PurePosixPath(rel).parent
    for spec in specs:
        if spec.startswith("."):
            joined = _normalise(base / spec)
            for candidate in (joined, *(joined + ext for ext in _JS),
                              *(f"{joined}/index{ext}" for ext in _JS)):
                if index.has(candidate):
                    if candidate not in internal:
                        internal.append(candidate)
                    break
        else:
            top = "/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0]
            if top not in external:
                external.append(top)
    return internal, external


def _normalise(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _go_imports(text: str) -> list[str]:
    block = re.search(r"^import\s*\((.*?)^\)", text, re.MULTILINE | re.DOTALL)
    found = _GO_IMPORT.findall(block.group(1)) if block else []
    found += re.findall(r'^import\s+(?:\w+\s+)?"([^"]+)"', text, re.MULTILINE)
    return list(dict.fromkeys(found))


def _declared_entry_points(index: RepoIndex, resolver: ModuleResolver) -> list[dict[str, str]]:
    """Console scripts and bins the project's own manifests declare (not a test fixture's
    or an example's: manifests.py), pointed at their file where it is in the repository."""
    out: list[dict[str, str]] = []
    scope = ManifestScope(index)
    for rel in index.files:
        name = PurePosixPath(rel).name
        if name not in ("pyproject.toml", "setup.cfg", "setup.py", "package.json") \
                or not scope.is_own(rel):
            continue
        try:
            if name == "pyproject.toml":
                data = tomllib.loads(index.text(rel))
                scripts = dict((data.get("project") or {}).get("scripts") or {})
                scripts.update(((data.get("tool") or {}).get("poetry") or {}).get("scripts") or {})
                out += [_script(rel, cmd, str(target), resolver) for cmd, target in scripts.items()]
            elif name == "setup.cfg":
                parser = configparser.ConfigParser(interpolation=None)
                parser.read_string(index.text(rel))
                if parser.has_option("options.entry_points", "console_scripts"):
                    for line in parser.get("options.entry_points", "console_scripts").splitlines():
                        if "=" in line:
                            cmd, target = (s.strip() for s in line.split("=", 1))
                            out.append(_script(rel, cmd, target, resolver))
            elif name == "setup.py":
                scripts = setup_py_metadata(index.text(rel))["entry_points"]
                for line in scripts.get("console_scripts", []):
                    if "=" in str(line):
                        cmd, target = (s.strip() for s in str(line).split("=", 1))
                        out.append(_script(rel, cmd, target, resolver))
            elif name == "package.json":
                data = jsonsafe.loads(index.text(rel))
                bins = data.get("bin") if isinstance(data, dict) else None
                if isinstance(bins, str):
                    bins = {data.get("name", "bin"): bins}
                for cmd, target in (bins or {}).items():
                    out.append({"path": _normalise(PurePosixPath(rel).parent / str(target)),
                                "kind": "bin", "detail": f"{cmd} ({rel})"})
                if isinstance(data, dict) and isinstance(data.get("main"), str):
                    out.append({"path": _normalise(PurePosixPath(rel).parent / data["main"]),
                                "kind": "main", "detail": f"package.json main ({rel})"})
        except (ValueError, TypeError, AttributeError, SyntaxError, configparser.Error):
            continue  # extract_dependencies reports manifests that do not parse
    return out


def _script(manifest: str, command: str, target: str, resolver: ModuleResolver) -> dict[str, str]:
    module = target.split(":", 1)[0].strip()
    path = resolver.resolve(module) or module
    return {"path": path, "kind": "script", "detail": f"{command} = {target} ({manifest})"}
