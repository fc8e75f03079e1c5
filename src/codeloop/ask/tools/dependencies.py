"""Tool 3, `extract_dependencies(path)`: what a project declares it needs, from its manifests.

Read: requirements*.txt (and requirements/*.txt), pyproject.toml (PEP 621 `[project]` and
Poetry `[tool.poetry]`), setup.cfg (`[options]`), setup.py (its `setup(...)` literals, parsed,
never run: setup_py.py), package.json and go.mod. Each entry says
where it came from and its kind: `runtime`, `dev` (test/lint/dev groups) or `optional`
(extras, peers), with its group. Only the project's own manifests (at the root, and in the
workspace members the root declares: manifests.py) give its dependencies; the others are
nested projects (test fixtures, examples), listed apart in `nested` with their names.
A manifest that does not parse is reported (`errors`, or its nested entry's `error`), never
guessed at.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

from codeloop import jsonsafe
from codeloop.ask.tools.manifests import ManifestScope, is_requirements, project_dir
from codeloop.ask.tools.setup_py import setup_py_metadata
from codeloop.ask.tools.walk import RepoIndex, as_index

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")
_DEV_GROUPS = {"dev", "develop", "development", "test", "tests", "testing", "lint", "docs",
               "doc", "typing", "style"}
_MAX_ENTRIES = 400
_MAX_NESTED = 100  # nested manifests listed; a nested list of names holds at most 40


def extract_dependencies(path: str | Path | RepoIndex) -> dict[str, Any]:
    """{runtime, dev, optional: [{name, spec, group, source, ecosystem}], sources, errors,
    nested: [{project, manifest, source, runtime, dev, optional (names), error}]}.
    `path`: the repository's directory, or its RepoIndex."""
    index = as_index(path)
    scope = ManifestScope(index)
    out: dict[str, Any] = {"runtime": [], "dev": [], "optional": [], "sources": [], "errors": [],
                           "nested": []}
    for rel in index.files:
        name = PurePosixPath(rel).name
        parser = _parser_for(rel, name)
        if parser is None:
            continue
        own = scope.is_own(rel)
        if not own and len(out["nested"]) >= _MAX_NESTED:
            continue
        problem, entries = "", []
        try:
            entries = parser(index.text(rel), name)
        except (ValueError, TypeError, KeyError, AttributeError, SyntaxError,
                configparser.Error) as exc:
            problem = f"{type(exc).__name__}: {str(exc)[:120]}"
        if not own:
            out["nested"].append(_nested(rel, name, entries, problem))
            continue
        if problem:
            out["errors"].append(f"{rel}: {problem}")
            continue
        if entries:
            out["sources"].append(rel)
        for kind, group, dep_name, spec, ecosystem in entries:
            bucket = out[kind]
            if len(bucket) < _MAX_ENTRIES:
                bucket.append({"name": dep_name, "spec": spec, "group": group,
                               "source": rel, "ecosystem": ecosystem})
    return out


def _nested(rel: str, name: str, entries: list[Entry], problem: str) -> dict[str, Any]:
    listed: dict[str, Any] = {"project": project_dir(rel) or ".", "manifest": name,
                              "source": rel, "error": problem}
    for kind in ("runtime", "dev", "optional"):
        listed[kind] = list(dict.fromkeys(e[2] for e in entries if e[0] == kind))[:40]
    return listed


def names(deps: dict[str, Any], kind: str = "runtime") -> list[str]:
    """The distinct names of one kind, in order of first mention."""
    return list(dict.fromkeys(d["name"] for d in deps.get(kind, [])))


def _parser_for(rel: str, name: str):
    if is_requirements(rel):
        return _requirements
    return {"pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "setup.py": _setup_py,
            "package.json": _package_json, "go.mod": _go_mod}.get(name)


Entry = tuple[str, str, str, str, str]  # kind, group, name, spec, ecosystem


def _requirement(line: str, kind: str, group: str) -> Entry | None:
    line = line.split(" #", 1)[0].strip()
    if not line or line.startswith(("#", "-", "git+", "http:", "https:", "file:", ".")):
        return None  # comments, options (-r, -e, --index-url), URLs and local paths
    match = _REQ_NAME.match(line.split(";", 1)[0])
    if match is None:
        return None
    return kind, group, match.group(1), match.group(3).strip(), "python"


def _requirements(text: str, name: str) -> list[Entry]:
    """requirements.txt is runtime; requirements-dev.txt, requirements/test.txt... are dev."""
    stem = name.rsplit(".", 1)[0]
    words = set(re.split(r"[-_.]", stem.lower()))
    kind = "dev" if words & _DEV_GROUPS else "runtime"
    out = []
    for line in text.splitlines():
        entry = _requirement(line, kind, stem)
        if entry:
            out.append(entry)
    return out


def _group_kind(group: str) -> str:
    return "dev" if group.lower() in _DEV_GROUPS else "optional"


def _pyproject(text: str, _name: str) -> list[Entry]:
    data = tomllib.loads(text)
    out: list[Entry] = []
    project = data.get("project") or {}
    for line in project.get("dependencies") or []:
        entry = _requirement(str(line), "runtime", "project")
        if entry:
            out.append(entry)
    for group, lines in (project.get("optional-dependencies") or {}).items():
        for line in lines or []:
            entry = _requirement(str(line), _group_kind(group), group)
            if entry:
                out.append(entry)
    for group, lines in (data.get("dependency-groups") or {}).items():  # PEP 735
        for line in lines or []:
            if isinstance(line, str):
                entry = _requirement(line, _group_kind(group), group)
                if entry:
                    out.append(entry)
    poetry = (data.get("tool") or {}).get("poetry") or {}
    out += _poetry_table(poetry.get("dependencies") or {}, "runtime", "poetry")
    out += _poetry_table(poetry.get("dev-dependencies") or {}, "dev", "dev")
    for group, table in (poetry.get("group") or {}).items():
        out += _poetry_table((table or {}).get("dependencies") or {}, _group_kind(group), group)
    return out


def _poetry_table(table: dict[str, Any], kind: str, group: str) -> list[Entry]:
    out = []
    for name, spec in table.items():
        if name.lower() == "python":  # the interpreter, not a package
            continue
        if isinstance(spec, dict):
            optional = spec.get("optional", False)
            spec = spec.get("version") or spec.get("git") or spec.get("path") or ""
            entry_kind = "optional" if optional and kind == "runtime" else kind
        else:
            entry_kind = kind
        out.append((entry_kind, group, name, str(spec), "python"))
    return out


def _setup_cfg(text: str, _name: str) -> list[Entry]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    out: list[Entry] = []
    if parser.has_option("options", "install_requires"):
        for line in parser.get("options", "install_requires").splitlines():
            entry = _requirement(line, "runtime", "install_requires")
            if entry:
                out.append(entry)
    if parser.has_option("options", "tests_require"):
        for line in parser.get("options", "tests_require").splitlines():
            entry = _requirement(line, "dev", "tests_require")
            if entry:
                out.append(entry)
    if parser.has_section("options.extras_require"):
        for group, value in parser.items("options.extras_require"):
            for line in value.splitlines():
                entry = _requirement(line, _group_kind(group), group)
                if entry:
                    out.append(entry)
    return out


def _setup_py(text: str, _name: str) -> list[Entry]:
    meta = setup_py_metadata(text)
    out = [_requirement(str(line), "runtime", "install_requires")
           for line in meta["install_requires"]]
    out += [_requirement(str(line), "dev", "tests_require") for line in meta["tests_require"]]
    for group, lines in meta["extras_require"].items():
        out += [_requirement(str(line), _group_kind(group), group) for line in lines]
    return [entry for entry in out if entry]


def _package_json(text: str, _name: str) -> list[Entry]:
    data = jsonsafe.loads(text)
    if not isinstance(data, dict):
        raise TypeError("package.json is not an object")
    out: list[Entry] = []
    for key, kind in (("dependencies", "runtime"), ("devDependencies", "dev"),
                      ("peerDependencies", "optional"), ("optionalDependencies", "optional")):
        table = data.get(key) or {}
        if not isinstance(table, dict):
            raise TypeError(f"package.json {key} is not an object")
        out += [(kind, key, str(name), str(spec), "node") for name, spec in table.items()]
    return out


_GO_REQUIRE = re.compile(r"^\s*([\w.\-/~]+)\s+(v[\w.\-+]+)(\s*//\s*indirect)?")


def _go_mod(text: str, _name: str) -> list[Entry]:
    out: list[Entry] = []
    in_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if in_block:
            if line.startswith(")"):
                in_block = False
                continue
            body = line
        elif line.startswith("require ("):
            in_block = True
            continue
        elif line.startswith("require "):
            body = line[len("require "):]
        else:
            continue
        match = _GO_REQUIRE.match(body)
        if match:
            group = "indirect" if match.group(3) else "require"
            out.append(("runtime", group, match.group(1), match.group(2), "go"))
    return out
