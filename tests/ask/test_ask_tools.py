"""The four repository tools on the fixture repositories: the exact tree, the dependencies
from each kind of manifest, the import map and entry points, the most central files first."""

from __future__ import annotations

import pytest

from codeloop.ask.tools.architecture import generate_architecture_map
from codeloop.ask.tools.dependencies import extract_dependencies, names
from codeloop.ask.tools.sources import read_source_files
from codeloop.ask.tools.structure import analyze_directory_structure
from codeloop.ask.tools.walk import RepoError, RepoIndex


def test_the_walk_skips_ignored_binary_huge_and_hidden_files(pyapp):
    index = RepoIndex.open(pyapp)
    assert index.files == [
        "README.md",  # hidden files (.gitignore, .env, .git/) are skipped
        "pyapp/__init__.py", "pyapp/cli.py", "pyapp/models.py", "pyapp/report.py",
        "pyapp/storage.py", "requirements-dev.txt", "requirements.txt"]
    assert dict(index.skipped) == {"gitignored": 2, "binary": 1, "huge": 1,
                                   "hidden or cache": 3}  # .env, .git, .gitignore


def test_directory_structure_is_exact(pyapp):
    result = analyze_directory_structure(RepoIndex.open(pyapp), max_depth=3)
    assert result["tree"] == (
        "pyapp/\n"
        "  pyapp/\n"
        "    __init__.py\n"
        "    cli.py\n"
        "    models.py\n"
        "    report.py\n"
        "    storage.py\n"
        "  README.md\n"
        "  requirements-dev.txt\n"
        "  requirements.txt")
    assert (result["files"], result["dirs"]) == (8, 1)
    assert result["by_extension"] == {".py": 5, ".txt": 2, ".md": 1}
    assert result["skipped"]["gitignored"] == 2


def test_max_depth_folds_deeper_directories_into_a_count(pyapp):
    tree = analyze_directory_structure(RepoIndex.open(pyapp), max_depth=1)["tree"]
    assert "  pyapp/ (5 files)" in tree.splitlines()
    assert "models.py" not in tree


def _deps(fixture_repo, name):
    deps = extract_dependencies(RepoIndex.open(fixture_repo(name)))
    assert deps["errors"] == []
    return {kind: [(d["name"], d["spec"], d["group"]) for d in deps[kind]]
            for kind in ("runtime", "dev", "optional")}, deps


def test_requirements_files(fixture_repo):
    found, deps = _deps(fixture_repo, "pyapp")
    # comments, -r includes, --index-url options are not packages; markers and extras dropped
    assert found["runtime"] == [("requests", ">=2.31", "requirements"),
                                ("click", "==8.1.7", "requirements"),
                                ("pyyaml", ">=6", "requirements")]
    assert found["dev"] == [("pytest", ">=8", "requirements-dev")]
    assert deps["sources"] == ["requirements-dev.txt", "requirements.txt"]


def test_pep621_pyproject(fixture_repo):
    found, _ = _deps(fixture_repo, "pep621")
    assert found == {"runtime": [("numpy", ">=1.26", "project"), ("rich", "", "project")],
                     "dev": [("pytest", ">=8", "test"), ("hypothesis", "", "test")],
                     "optional": [("matplotlib", ">=3.8", "plot")]}


def test_poetry_pyproject(fixture_repo):
    found, _ = _deps(fixture_repo, "poetry")
    assert found == {"runtime": [("httpx", "^0.27", "poetry"), ("pydantic", "^2.7", "poetry")],
                     "dev": [("pytest", "^8.0", "dev"), ("ruff", "*", "dev")],
                     "optional": [("uvloop", "^0.19", "poetry")]}  # python itself is no package


def test_setup_cfg(fixture_repo):
    found, _ = _deps(fixture_repo, "setupcfg")
    assert found == {"runtime": [("attrs", ">=23", "install_requires"),
                                 ("six", "", "install_requires")],
                     "dev": [("pytest", "", "tests_require"), ("sphinx", ">=7", "docs")],
                     "optional": [("pyyaml", "", "yaml")]}


def test_package_json(fixture_repo):
    found, _ = _deps(fixture_repo, "node")
    assert found == {"runtime": [("express", "^4.19.2", "dependencies"),
                                 ("@scope/logger", "1.2.0", "dependencies")],
                     "dev": [("jest", "^29.7.0", "devDependencies")],
                     "optional": [("react", ">=18", "peerDependencies")]}


def test_go_mod(fixture_repo):
    found, deps = _deps(fixture_repo, "gosvc")
    assert found["runtime"] == [("github.com/google/uuid", "v1.6.0", "require"),
                                ("github.com/gorilla/mux", "v1.8.1", "require"),
                                ("golang.org/x/sys", "v0.20.0", "indirect")]
    assert names(deps) == ["github.com/google/uuid", "github.com/gorilla/mux", "golang.org/x/sys"]


def test_a_broken_manifest_is_reported_not_guessed(fixture_repo):
    root = fixture_repo("node")
    (root / "package.json").write_text("{ not json")
    deps = extract_dependencies(RepoIndex.open(root))
    assert deps["runtime"] == [] and deps["sources"] == []
    assert deps["errors"] and deps["errors"][0].startswith("package.json: JSONDecodeError")


def test_python_import_map_and_entry_points(pyapp):
    arch = generate_architecture_map(RepoIndex.open(pyapp))
    modules = {m["path"]: m for m in arch["modules"]}
    assert modules["pyapp/cli.py"]["imports"] == ["pyapp/report.py", "pyapp/storage.py"]
    assert modules["pyapp/cli.py"]["external"] == ["sys", "click"]
    assert modules["pyapp/report.py"]["imports"] == ["pyapp/models.py"]  # `from .models`
    assert modules["pyapp/storage.py"]["imports"] == ["pyapp/models.py"]
    assert {p: m["fan_in"] for p, m in modules.items()} == {
        "pyapp/__init__.py": 0, "pyapp/cli.py": 0, "pyapp/models.py": 2,
        "pyapp/report.py": 1, "pyapp/storage.py": 1}
    assert modules["pyapp/report.py"]["defines"] == ["inventory_value", "low_stock"]
    assert arch["entry_points"] == [{"path": "pyapp/cli.py", "kind": "main",
                                     "detail": "__main__"}]
    assert "build/generated.py" not in modules  # .gitignore'd


def test_declared_entry_points_and_src_layout(fixture_repo):
    arch = generate_architecture_map(RepoIndex.open(fixture_repo("pep621")))
    assert arch["entry_points"] == [{"path": "src/calc/main.py", "kind": "script",
                                     "detail": "calc = calc.main:run (pyproject.toml)"}]
    main = next(m for m in arch["modules"] if m["path"] == "src/calc/main.py")
    assert main["imports"] == ["src/calc/ops.py"]


def test_js_and_go_imports(fixture_repo):
    node = generate_architecture_map(RepoIndex.open(fixture_repo("node")))
    modules = {m["path"]: m for m in node["modules"]}
    assert modules["index.js"]["imports"] == ["lib/util.js"]
    assert modules["index.js"]["external"] == ["express"]
    assert modules["lib/util.js"]["external"] == ["@scope/logger"]
    assert {"path": "bin/cli.js", "kind": "bin", "detail": "webapp (package.json)"} in \
        node["entry_points"]
    go = generate_architecture_map(RepoIndex.open(fixture_repo("gosvc")))
    assert go["modules"][0]["external"] == ["fmt", "github.com/google/uuid"]
    assert go["entry_points"] == [{"path": "main.go", "kind": "main", "detail": "func main"}]


def test_a_stdlib_name_is_not_taken_for_a_nested_module(fixture_repo):
    root = fixture_repo("pyapp")
    (root / "pyapp" / "json.py").write_text("X = 1\n")  # pyapp.json, not the stdlib json
    arch = generate_architecture_map(RepoIndex.open(root))
    storage = next(m for m in arch["modules"] if m["path"] == "pyapp/storage.py")
    assert "json" in storage["external"] and "pyapp/json.py" not in storage["imports"]


def test_read_source_files_reads_the_most_imported_first(pyapp):
    index = RepoIndex.open(pyapp)
    files = read_source_files(index, max_files=3,
                              architecture=generate_architecture_map(index))
    # by fan-in (models 2, then report and storage 1: the larger first), not alphabetically
    assert [f["path"] for f in files] == ["pyapp/models.py", "pyapp/report.py",
                                          "pyapp/storage.py"]
    assert files[0]["text"] == (pyapp / "pyapp" / "models.py").read_text()
    assert files[0]["fan_in"] == 2 and files[0]["truncated"] is False


def test_every_tool_takes_a_path_as_well_as_an_index(pyapp):
    index = RepoIndex.open(pyapp)
    for path in (pyapp, str(pyapp)):  # a Path or a str: the tool walks the repository itself
        assert analyze_directory_structure(path, 2) == analyze_directory_structure(index, 2)
        assert extract_dependencies(path) == extract_dependencies(index)
        assert generate_architecture_map(path) == generate_architecture_map(index)
        # no architecture map given: read_source_files makes it, so the order is by fan-in
        files = read_source_files(path, 3)
        assert [f["path"] for f in files] == ["pyapp/models.py", "pyapp/report.py",
                                              "pyapp/storage.py"]
        assert files == read_source_files(index, 3,
                                          architecture=generate_architecture_map(index))
    assert names(extract_dependencies(pyapp)) == ["requests", "click", "pyyaml"]
    with pytest.raises(RepoError, match="does not exist"):
        extract_dependencies(pyapp / "nope")


def test_missing_and_non_directory_repositories(tmp_path):
    with pytest.raises(RepoError, match="does not exist"):
        RepoIndex.open(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(RepoError, match="is not a directory"):
        RepoIndex.open(tmp_path / "file.txt")


def test_the_walk_stops_at_its_file_and_byte_budgets(pyapp, monkeypatch):
    from codeloop.ask.tools import walk

    monkeypatch.setattr(walk, "MAX_FILES", 3)
    index = RepoIndex.open(pyapp)
    assert len(index.files) == 3 and index.skipped["over the file limit"] == 5
    monkeypatch.setattr(walk, "MAX_FILES", 4000)
    monkeypatch.setattr(walk, "MAX_TOTAL_BYTES", 300)
    index = RepoIndex.open(pyapp)
    assert sum(len(index.text(f).encode()) for f in index.files) <= 300
    assert index.skipped["over the size budget"] >= 1
