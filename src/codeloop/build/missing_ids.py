"""A test expecting 404 for a small literal id, in a file whose other tests create records,
asks for an id that no test creates.

Measured on the 1.5B (build benchmark, five runs from ec2b586 to 4e021a9): seven routes
tasks' test files (bookmarks B2 and B3, notes N4) had `test_create_note` POST a note and,
further down, `test_get_note_missing` GET `/notes/1` expecting 404. The routes share one
store for the process (the task says so, and module_store.py gives them one), so the note
the first test made is there when the second asks: right code failed the test, the code
rounds were told to fix the code, and the task was blocked. What the test means is plain,
"an id nobody created answers 404", so the harness asks for an id that the file cannot
have created; the test still fails on routes that never answer 404.

Only a test that creates nothing itself (no `.post(`, `.add(`, `.create(` call in its own
body) and compares a status with 404, only a string path's all-digit segment under 1000, and
only when another test of the file creates: otherwise the file is left as it was.
"""

from __future__ import annotations

import ast
import re

UNUSED_ID = "999999"
SMALL_ID = 1000  # ids a test file could have created before this test runs
CREATING = {"post", "add", "create"}
REQUESTS = {"get", "delete", "put", "patch", "head", "post"}
_DIGITS = re.compile(r"(?<=/)(\d+)(?=/|\?|$)")


def with_unused_missing_ids(text: str) -> tuple[str, list[str]]:
    """(`text` with each small id a 404 test asks for made one no test creates; one note
    per test changed)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    tests = [node for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.name.startswith("test")]
    creators = [test.name for test in tests if _creates(test)]
    if not creators:
        return text, []
    lines = text.splitlines(keepends=True)
    notes: list[str] = []
    for test in tests:
        if test.name in creators or not expects_not_found(test):
            continue
        # right to left: a change leaves the columns before it as they were
        changed = [path for node in sorted(_request_paths(test), reverse=True,
                                           key=lambda n: (n.lineno, n.col_offset))
                   if (path := _replace(lines, node)) is not None][::-1]
        if changed:
            notes.append(f"{test.name} asked for {', '.join(changed)} expecting 404, and "
                         f"{creators[0]} creates records in the store the tests share: it "
                         f"asks for id {UNUSED_ID} now, one no test creates")
    return "".join(lines), notes


def _creates(test: ast.AST) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in CREATING for node in ast.walk(test))


def expects_not_found(test: ast.AST) -> bool:
    """Whether the test compares something with 404 (`== 404`, `status.HTTP_404_...`)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant) and side.value == 404 \
                        and not isinstance(side.value, bool):
                    return True
                if isinstance(side, ast.Attribute) and side.attr.startswith("HTTP_404"):
                    return True
    return False


def _request_paths(test: ast.AST) -> list[ast.Constant]:
    """The string paths the test's requests (`client.get("/notes/1")`) ask for."""
    return [node.args[0] for node in ast.walk(test)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in REQUESTS and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("/")]


def _replace(lines: list[str], node: ast.Constant) -> str | None:
    """The path `node` asked for when its small all-digit segments were replaced in
    `lines` (a one-line plain literal only), else None."""
    path = str(node.value)
    if node.end_lineno != node.lineno or not any(
            int(m.group(1)) < SMALL_ID for m in _DIGITS.finditer(path.split("?")[0])):
        return None
    line = lines[node.lineno - 1].encode()
    literal = line[node.col_offset:node.end_col_offset].decode(errors="replace")
    if not literal or literal[0] not in "'\"" or literal[1:-1] != path:
        return None  # a prefix (f, b, r), an escape or a split literal: left as written
    new = _DIGITS.sub(lambda m: UNUSED_ID if int(m.group(1)) < SMALL_ID else m.group(1),
                      path)
    lines[node.lineno - 1] = (line[:node.col_offset] + f"{literal[0]}{new}{literal[0]}".encode()
                              + line[node.end_col_offset:]).decode()
    return path
