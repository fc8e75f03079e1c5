"""What a request says about the workspace's files, read by rules (no model call): the files
it names, the local modules a test file imports, which files are tests, and whether the
request lets the agent change tests.

Why rules: a small model asked to find the files first often never opens the module it is
asked to fix (an outside side-by-side run: 4 of 7 repairs read only the test file). The
names a person writes in a request ("fix parse_age in people.py") are reliable; a module a
failing test imports is where its bug most likely is.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

# A file name as people write one: a word with a known extension, maybe with folders.
_FILE_NAME = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:py|pyi|js|mjs|ts|tsx|jsx|json|ya?ml|toml|cfg|"
    r"ini|md|txt|go|sh|html|css))(?![\w/-])")
_TEST_NAME = re.compile(r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*\.(test|spec)\."
                        r"[jt]sx?|[^/]*_test\.go)$")
_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|spec)/")
# The request asks for tests to be written or changed (then editing them is the job).
_CHANGE_TESTS = re.compile(
    r"\b(add|write|create|update|change|extend|modify|edit|rename|adjust|cover|generate)\b"
    r"[^.;:!?]{0,60}?\b(tests?|test cases?|test_\w+|unit tests?)\b", re.IGNORECASE)
_TESTS_FIRST = re.compile(r"\b(the )?tests?\b[^.;:!?]{0,40}\b(is|are) (wrong|outdated|incorrect)"
                          r"|\bfix (the |this |that )?tests?\b", re.IGNORECASE)
_NEGATED = re.compile(r"(\bnot|\bnever|n't|\bwithout|\bno)\s*$", re.IGNORECASE)
# The request asks to repair behaviour: a bug, a crash, failing tests.
_FIX = re.compile(r"\b(fix|bug|repair|crash(es|ing)?|broken|fails?|failing|error|wrong)\b",
                  re.IGNORECASE)
_MENTIONS_TESTS = re.compile(r"\btests?\b|\btest_\w+|pytest", re.IGNORECASE)
# A request for a change (not a question about the code).
_CHANGE = re.compile(
    r"\b(add|rename|change|fix|implement|create|update|refactor|remove|delete|replace|make|"
    r"write|extract|move|convert|support|handle|set|use|raise|return|repair)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*(what|why|how|where|which|who|when|explain|describe|does|do|is|"
                       r"are|can|could|should|list|show|summari[sz]e)\b", re.IGNORECASE)


def is_test_path(path: str) -> bool:
    """A test file by the usual conventions (pytest, Jest/Vitest, Go)."""
    clean = path.replace("\\", "/").removeprefix("./")
    return bool(_TEST_NAME.search(clean) or _TEST_DIR.search(clean))


def mentioned_names(request: str) -> list[str]:
    """File names written in the request, in order, without repeats."""
    out: list[str] = []
    for match in _FILE_NAME.finditer(request):
        name = match.group(1).strip(".").removeprefix("./")
        if name and name not in out:
            out.append(name)
    return out


def named_files(request: str, files: list[str]) -> tuple[list[str], list[str]]:
    """(existing, new): the workspace files the request names (by path, or by a name that
    only one file has), and names of files that do not exist yet (to create)."""
    existing: list[str] = []
    new: list[str] = []
    for name in mentioned_names(request):
        if name in files:
            found = [name]
        else:
            found = [f for f in files if f.endswith("/" + name)]
        if len(found) == 1 and found[0] not in existing:
            existing.append(found[0])
        elif not found and name not in new:
            new.append(name)
    return existing, new


def protects_tests(request: str) -> bool:
    """True when the request asks to fix code and not to change tests: then a test file is
    the specification, and editing it to match the bug is refused."""
    return not asks_to_change_tests(request) and bool(_FIX.search(request))


def asks_to_change_tests(request: str) -> bool:
    """The request asks for tests to be written or changed (not "do not change the tests":
    a negated ask is the opposite, measured on review's failing-test request)."""
    asks = [m for m in _CHANGE_TESTS.finditer(request)
            if not _NEGATED.search(request[max(0, m.start() - 16):m.start()])]
    return bool(asks or _TESTS_FIRST.search(request))


def asks_for_change(request: str) -> bool:
    """A request to change code (an imperative with a change verb), not a question."""
    text = request.strip()
    if not text or _QUESTION.search(text) or text.endswith("?"):
        return False
    return bool(_CHANGE.search(text))


def mentions_tests(request: str) -> bool:
    return bool(_MENTIONS_TESTS.search(request))


def local_imports(source: str, path: str, files: list[str]) -> list[str]:
    """The workspace files a Python file imports (`import x`, `from x import y`, `from . import
    y`), resolved against the file's folder and the workspace root; unknown modules (the
    standard library, packages) are left out."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    known = set(files)
    folder = PurePosixPath(path).parent
    out: list[str] = []

    def add(module: str, base: PurePosixPath) -> None:
        stem = PurePosixPath(*module.split(".")) if module else PurePosixPath()
        for root in (base, PurePosixPath()):
            for candidate in (root / f"{stem}.py", root / stem / "__init__.py"):
                text = str(candidate).removeprefix("./")
                if text in known and text != path and text not in out:
                    out.append(text)
                    return

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, folder)
        elif isinstance(node, ast.ImportFrom):
            base = folder
            for _ in range(max(node.level - 1, 0)):
                base = base.parent
            if node.module:
                add(node.module, base)
            for alias in node.names:  # `from pkg import module`
                add(f"{node.module}.{alias.name}" if node.module else alias.name, base)
    return out
