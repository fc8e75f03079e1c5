"""`ask`'s repository report counts the project's own manifests (at the root, and the
workspace members the root declares) as its dependencies, and lists the nested projects
(test fixtures, examples) apart: on codeloop itself express, gorilla/mux and numpy (its test
fixtures' manifests) were reported as codeloop's dependencies."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from codeloop.ask.tools.architecture import generate_architecture_map
from codeloop.ask.tools.dependencies import extract_dependencies, names
from codeloop.cli import app

ROOT_PYPROJECT = """\
[project]
name = "shop"
dependencies = ["requests>=2"]

[project.optional-dependencies]
test = ["pytest"]

[project.scripts]
shop = "shop.cli:main"

[tool.uv.workspace]
members = ["packages/*"]
exclude = ["packages/legacy"]
"""


def _write(root, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _repository(tmp_path):
    root = tmp_path / "shop"
    _write(root, "pyproject.toml", ROOT_PYPROJECT)
    _write(root, "requirements-dev.txt", "ruff\n")
    _write(root, "shop/__init__.py", '"""A shop."""\n')
    _write(root, "shop/cli.py", "def main():\n    pass\n")
    # a workspace member the root declares: its dependencies are the project's own
    _write(root, "packages/core/pyproject.toml",
           '[project]\nname = "core"\ndependencies = ["pydantic"]\n')
    _write(root, "packages/legacy/pyproject.toml",  # excluded from the workspace
           '[project]\nname = "legacy"\ndependencies = ["six"]\n')
    # nested projects: fixtures and examples, not the project's dependencies
    _write(root, "tests/fixtures/web/package.json", json.dumps(
        {"name": "web", "main": "index.js", "dependencies": {"express": "^4.18.0"},
         "devDependencies": {"jest": "^29"}}))
    _write(root, "tests/fixtures/web/index.js", "require('express')\n")
    _write(root, "examples/gosvc/go.mod",
           "module example.com/gosvc\n\ngo 1.21\n\nrequire github.com/gorilla/mux v1.8.0\n")
    _write(root, "examples/ml/requirements.txt", "numpy==1.26\n")
    return root


def test_only_the_root_and_its_workspace_members_are_the_projects_own(tmp_path):
    deps = extract_dependencies(_repository(tmp_path))
    own = {d["name"] for kind in ("runtime", "dev", "optional") for d in deps[kind]}
    assert own == {"requests", "pytest", "ruff", "pydantic"}
    assert set(names(deps)) == {"requests", "pydantic"}
    assert sorted(deps["sources"]) == ["packages/core/pyproject.toml", "pyproject.toml",
                                       "requirements-dev.txt"]
    nested = {(n["project"], n["manifest"]): n for n in deps["nested"]}
    assert set(nested) == {("examples/gosvc", "go.mod"), ("examples/ml", "requirements.txt"),
                           ("packages/legacy", "pyproject.toml"),
                           ("tests/fixtures/web", "package.json")}
    assert nested[("tests/fixtures/web", "package.json")]["runtime"] == ["express"]
    assert nested[("tests/fixtures/web", "package.json")]["dev"] == ["jest"]
    assert nested[("examples/gosvc", "go.mod")]["runtime"] == ["github.com/gorilla/mux"]


def test_a_nested_projects_entry_points_are_not_the_projects(tmp_path):
    entries = generate_architecture_map(_repository(tmp_path))["entry_points"]
    details = [e["detail"] for e in entries]
    assert any(d.startswith("shop = shop.cli:main") for d in details)
    assert not any("tests/fixtures/web" in d for d in details)


def test_the_report_lists_nested_projects_apart(tmp_path):
    root = _repository(tmp_path)
    result = CliRunner().invoke(app, ["ask", "Analyze this repository", "--repo", str(root),
                                      "--no-model", "--json", "--store",
                                      str(tmp_path / "runs.db")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["final_output"]
    section = report.split("## Dependencies", 1)[1].split("## Architecture", 1)[0]
    own, _, nested = section.partition("Nested projects")
    assert "requests" in own and "pydantic" in own
    for name in ("express", "gorilla/mux", "numpy", "six"):
        assert name not in own
    assert "- tests/fixtures/web (package.json): express; dev: jest" in nested
    assert "- examples/gosvc (go.mod): github.com/gorilla/mux" in nested
    assert "- examples/ml (requirements.txt): numpy" in nested


def test_a_repository_with_no_root_manifest_says_so_and_lists_the_nested(tmp_path):
    root = tmp_path / "bare"
    _write(root, "main.py", "print('hi')\n")
    _write(root, "examples/web/package.json", json.dumps({"dependencies": {"express": "4"}}))
    deps = extract_dependencies(root)
    assert not deps["runtime"] and deps["nested"][0]["runtime"] == ["express"]
    result = CliRunner().invoke(app, ["ask", "Analyze this repository", "--repo", str(root),
                                      "--no-model", "--json", "--store",
                                      str(tmp_path / "runs.db")])
    report = json.loads(result.stdout)["final_output"]
    assert "No dependency manifest at the repository root" in report
    assert "- examples/web (package.json): express" in report


def _own_projects(tmp_path, root_files: dict[str, str], dirs: list[str]) -> set[str]:
    root = tmp_path / "mono"
    for rel, text in root_files.items():
        _write(root, rel, text)
    for directory in dirs:
        _write(root, f"{directory}/package.json", json.dumps({"dependencies": {"left-pad": "1"}}))
    deps = extract_dependencies(root)
    return {d["source"].rsplit("/", 1)[0] for d in deps["runtime"] if "/" in d["source"]}


def test_the_workspace_declarations_of_npm_pnpm_and_go(tmp_path):
    dirs = ["packages/a", "packages/old", "apps/web/site", "svc", "lib", "tests/fixtures/x"]
    npm = {"package.json": json.dumps({"workspaces": ["packages/*", "!packages/old"]})}
    assert _own_projects(tmp_path / "npm", npm, dirs) == {"packages/a"}
    yarn = {"package.json": json.dumps({"workspaces": {"packages": ["apps/**"]}})}
    assert _own_projects(tmp_path / "yarn", yarn, dirs) == {"apps/web/site"}
    pnpm = {"pnpm-workspace.yaml": "packages:\n  - 'apps/*/site'\n  - svc\n"}
    assert _own_projects(tmp_path / "pnpm", pnpm, dirs) == {"apps/web/site", "svc"}
    go = {"go.work": "go 1.22\n\nuse (\n\t./svc\n\t./lib\n)\n"}
    assert _own_projects(tmp_path / "go", go, dirs) == {"svc", "lib"}


def test_a_hostile_workspace_pattern_costs_bounded_work(tmp_path):
    """A root manifest is repository data: a pattern of many `**` does not blow up."""
    deep = "/".join(f"d{i}" for i in range(11))
    pattern = "/".join(["**"] * 60) + "/nomatch"  # under MAX_PATTERN_CHARS
    npm = {"package.json": json.dumps({"workspaces": [pattern] * 150})}
    assert _own_projects(tmp_path, npm, [deep]) == set()
