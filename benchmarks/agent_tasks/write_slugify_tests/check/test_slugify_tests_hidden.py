"""The agent's test_text.py: it exists, has >= 3 tests, passes on the real slugify and fails
on each planted mutant (each run in a fresh folder, in a subprocess)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ORIGINAL = '''import re
import unicodedata


def slugify(text):
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower())
    return slug.strip("-")
'''
MUTANTS = {
    "no_lower": ("ascii_text.lower()", "ascii_text"),
    "no_strip": ('slug.strip("-")', "slug"),
    "no_collapse": ('r"[^a-z0-9]+"', 'r"[^a-z0-9]"'),
}


def _tests() -> str:
    path = HERE / "test_text.py"
    assert path.is_file(), "test_text.py was not written"
    return path.read_text()


def _run(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "text.py").write_text(source)
    (tmp_path / "test_text.py").write_text(_tests())
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    # Without plugin autoload: faster, and nothing installed changes how the tests run.
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_text.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env=env, check=False)


def test_at_least_three_test_functions():
    tree = ast.parse(_tests())
    names = [node.name for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.name.startswith("test")]
    assert len(names) >= 3, names
    assert "slugify" in _tests()


def test_they_pass_on_the_real_code(tmp_path):
    result = _run(tmp_path, ORIGINAL)
    assert result.returncode == 0, result.stdout[-2000:]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_they_catch_a_broken_slugify(tmp_path, name):
    old, new = MUTANTS[name]
    assert old in ORIGINAL
    result = _run(tmp_path, ORIGINAL.replace(old, new))
    assert result.returncode == 1, f"mutant {name} not caught:\n{result.stdout[-2000:]}"
