"""Structure questions are answered from the tools' data (facts.py): where a name is defined,
which module imports a name, the declared dependencies (setup.py read by parsing, never run)
and the entry points, each fact with a path:line the answer can cite."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeloop.ask.facts import structure_facts
from codeloop.ask.service import ask
from codeloop.ask.tools.architecture import generate_architecture_map
from codeloop.ask.tools.dependencies import extract_dependencies, names
from codeloop.ask.tools.setup_py import setup_py_metadata
from codeloop.ask.tools.walk import RepoIndex
from codeloop.llm.scripted import ScriptedLLM

SETUP = '''import os
from setuptools import setup

install_requires = ['text-unidecode>=1.3']
extras = {'unidecode': ['Unidecode>=1.1.1']}

if os.environ.get("PUBLISH"):
    os.system("twine upload dist/*")

setup(
    name='sluggy',
    install_requires=install_requires,
    extras_require=extras,
    tests_require=['pytest'],
    entry_points={'console_scripts': ['sluggy=sluggy.__main__:main']},
)
'''
CORE = '''import re
import unicodedata

try:
    import unidecode
except ImportError:
    import text_unidecode as unidecode

DEFAULT_SEPARATOR = "-"


def slugify(text):
    return re.sub(r"\\W+", DEFAULT_SEPARATOR, unidecode.unidecode(text)).lower()
'''
MAIN = '''import argparse

from .core import slugify


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("text")
    print(slugify(parser.parse_args(argv).text))
'''


@pytest.fixture
def sluggy(tmp_path) -> Path:
    root = tmp_path / "sluggy-1.0"
    (root / "sluggy").mkdir(parents=True)
    (root / "setup.py").write_text(SETUP)
    (root / "sluggy" / "__init__.py").write_text("from .core import *\n")
    (root / "sluggy" / "core.py").write_text(CORE)
    (root / "sluggy" / "__main__.py").write_text(MAIN)
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text("import unidecode\nfrom sluggy import slugify\n")
    return root


def facts(question: str, root: Path) -> list[str]:
    index = RepoIndex.open(root)
    return structure_facts(question, index, extract_dependencies(index),
                           generate_architecture_map(index))


def test_setup_py_is_read_by_parsing_it_not_by_running_it(sluggy):
    meta = setup_py_metadata(SETUP)
    assert meta["install_requires"] == ["text-unidecode>=1.3"]  # a name bound to a literal
    assert meta["extras_require"] == {"unidecode": ["Unidecode>=1.1.1"]}
    assert meta["entry_points"] == {"console_scripts": ["sluggy=sluggy.__main__:main"]}
    deps = extract_dependencies(sluggy)
    assert (names(deps), names(deps, "optional"), names(deps, "dev")) == (
        ["text-unidecode"], ["Unidecode"], ["pytest"])
    scripts = [e for e in generate_architecture_map(sluggy)["entry_points"]
               if e["kind"] == "script"]
    assert scripts == [{"path": "sluggy/__main__.py", "kind": "script",
                        "detail": "sluggy = sluggy.__main__:main (setup.py)"}]
    with pytest.raises(SyntaxError):
        setup_py_metadata("setup(")


def test_where_a_name_is_defined_comes_from_the_ast(sluggy):
    assert facts("Where is DEFAULT_SEPARATOR defined?", sluggy) == [
        "`DEFAULT_SEPARATOR` is defined at sluggy/core.py:9 (assignment)"]
    assert facts("Which file defines slugify?", sluggy)[0] == (
        "`slugify` is defined at sluggy/core.py:12 (def)")


def test_which_module_imports_a_name_comes_from_the_import_statements(sluggy):
    assert facts("Which module imports text_unidecode?", sluggy) == [
        "sluggy/core.py:7 `import text_unidecode as unidecode`"]
    # the package's own files first; tests marked, or left out when the question says so
    assert facts("Which module imports unidecode?", sluggy) == [
        "sluggy/core.py:5 `import unidecode`",
        "tests/test_core.py:1 `import unidecode` (a test or example)"]
    assert facts("Which module (not its tests) imports unidecode?", sluggy) == [
        "sluggy/core.py:5 `import unidecode`"]
    assert facts("Which module imports yaml?", sluggy) == [
        "no Python file of the repository imports yaml (checked by parsing)"]


def test_dependencies_and_entry_points_come_with_the_manifest_line(sluggy):
    assert facts("What are the runtime dependencies?", sluggy) == [
        "runtime dependency `text-unidecode` >=1.3 declared at setup.py:4",
        "optional dependency `Unidecode` >=1.1.1 declared at setup.py:5, extra `unidecode`"]
    found = facts("Which console script does it install?", sluggy)  # "install": deps too
    assert found[-2:] == [("script entry point: sluggy = sluggy.__main__:main (setup.py) declared "
                        "at setup.py:15; `main` is defined at sluggy/__main__.py:6"),
                          "main entry point: sluggy/__main__.py (__main__)"]


def test_the_model_phrases_the_facts_and_an_answer_without_them_gets_them(sluggy):
    steps = {"match": "Plan how to complete the task",
             "json": {"steps": ["Find the import", "Read it", "Answer"]}}
    llm = ScriptedLLM([steps, {"match": "Facts the repository tools found", "reply": "core"},
                       {"match": "It cites no line", "reply": "core, I think"}])
    result = ask("Which module imports text_unidecode?", sluggy, llm)
    assert "structure_facts" in [u["tool"] for u in result.tool_usage]
    prompt = llm.calls[1][-1].content
    assert "- sluggy/core.py:7 `import text_unidecode as unidecode`" in prompt
    assert result.final_output == ("core\n\nFrom the repository's tools:\n"
                                   "- sluggy/core.py:7 `import text_unidecode as unidecode`")
    assert result.grounding["grounded"] == 1


def test_a_project_that_declares_no_dependency_says_which_manifests_declare_none(tmp_path):
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    (tmp_path / "x.py").write_text("import json\n")
    assert facts("What are the runtime dependencies?", tmp_path) == [
        ("the project declares no dependencies: none at runtime, none optional "
         "(read: setup.py:2)")]  # the line that declares the package: a citation that holds


def test_an_answer_naming_the_manifest_but_not_the_dependencies_gets_the_facts(sluggy):
    # the 1.5B: "declared in the requirements.txt file at lines 2, 3, and 4", no name
    steps = {"match": "Plan how to complete the task",
             "json": {"steps": ["Find the manifest", "Read it", "Answer"]}}
    llm = ScriptedLLM([steps, {"match": "Facts the repository tools found",
                               "reply": "They are declared in setup.py at lines 4 and 5."}])
    result = ask("What are the runtime dependencies?", sluggy, llm)
    assert result.final_output.endswith(
        "From the repository's tools:\n"
        "- runtime dependency `text-unidecode` >=1.3 declared at setup.py:4\n"
        "- optional dependency `Unidecode` >=1.1.1 declared at setup.py:5, extra `unidecode`")
    assert result.grounding["grounded"] >= 1  # the names are on the lines cited


def test_the_implementation_comes_before_its_typing_protocol(tmp_path):
    (tmp_path / "a_store.py").write_text(
        "from typing import Protocol\n\n\nclass RunStore(Protocol):\n    def get(self): ...\n")
    (tmp_path / "store.py").write_text("class RunStore:\n    def get(self):\n        return 1\n")
    assert facts("Where is the RunStore class defined?", tmp_path)[:2] == [
        "`RunStore` is defined at store.py:1 (class)",
        ("`RunStore` is defined at a_store.py:4 (class, a typing Protocol: the interface, not "
         "the implementation)")]
