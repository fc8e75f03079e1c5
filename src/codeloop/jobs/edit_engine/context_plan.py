"""Which files the context-first edit shows (jobs/react/context_first.py), by rules:

- the files the request names; the workspace modules a named test imports (the code under
  test), and the modules those import in turn (a bug a test shows is often one call deeper);
  for a named module, its test file by the usual name, shown as the specification;
- a request that names no file but asks for a change, in a small project: every source file
  (a rename "in every file" of a five-file project needs them all, and a small model asked to
  find them first kept re-reading one);
- otherwise none: the ReAct tools explore.
"""

from __future__ import annotations

from dataclasses import dataclass

from codeloop.jobs.edit_engine.stable_output import stable_output
from codeloop.jobs.request_files import (
    asks_for_change,
    is_test_path,
    local_imports,
    mentions_tests,
    named_files,
    protects_tests,
)
from codeloop.redaction import redact_secrets

PYTEST = "python -m pytest -q -p no:cacheprovider --tb=short"
MAX_TEST_OUTPUT_CHARS = 3_000
MAX_IMPORTED = 6  # modules added by following imports, at most
# "A small project": all of its source files fit in one prompt.
SMALL_PROJECT_FILES = 8
SMALL_PROJECT_CHARS = 12_000
SOURCE_SUFFIXES = (".py", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".go", ".json", ".toml",
                   ".yaml", ".yml", ".cfg", ".ini")


@dataclass
class Plan:
    """What the first prompt holds: files to edit, files shown as specification, new files."""

    edit: list[str]
    spec: list[str]
    new: list[str]
    protect: bool


def plan_context(request: str, files: list[str], read) -> Plan | None:
    """The files for the first prompt, or None when the tools should explore instead.
    `read(path)` gives a file's text."""
    existing, new = named_files(request, files)
    protect = protects_tests(request)
    if not existing and not new:
        return _small_project(request, files, read, protect)
    tests = [f for f in existing if is_test_path(f)]
    edit = [f for f in existing if not is_test_path(f) or not protect]
    # The modules a named test imports (the code under test), then what those import.
    imported: list[str] = []
    for source in tests + [f for f in edit if f.endswith(".py")]:
        for module in local_imports(safe_read(read, source), source, files):
            if module not in edit and module not in imported and not is_test_path(module):
                imported.append(module)
    for module in list(imported):
        for deeper in local_imports(safe_read(read, module), module, files):
            if deeper not in edit and deeper not in imported and not is_test_path(deeper):
                imported.append(deeper)
    edit += imported[:MAX_IMPORTED]
    if mentions_tests(request):
        for module in [f for f in edit if f.endswith(".py")]:
            stem = module.rsplit("/", 1)[-1][:-3]
            for test in files:
                name = test.rsplit("/", 1)[-1]
                if name in (f"test_{stem}.py", f"{stem}_test.py") and test not in tests:
                    tests.append(test)
    new = [n for n in new if not (protect and is_test_path(n))]
    if not edit and not new:
        return None
    spec = [t for t in tests if t not in edit]
    return Plan(edit=edit, spec=spec, new=new, protect=protect)


def _small_project(request: str, files: list[str], read, protect: bool) -> Plan | None:
    """Every source file of a small project, for a change request that names none."""
    if not asks_for_change(request):
        return None
    sources = [f for f in files if f.endswith(SOURCE_SUFFIXES) and not f.startswith(".")]
    if not sources or len(sources) > SMALL_PROJECT_FILES:
        return None
    if sum(len(safe_read(read, f)) for f in sources) > SMALL_PROJECT_CHARS:
        return None
    tests = [f for f in sources if is_test_path(f)]
    edit = [f for f in sources if not is_test_path(f) or not protect]
    return Plan(edit=edit, spec=[t for t in tests if t not in edit], new=[], protect=protect)


def safe_read(read, path: str) -> str:
    try:
        return read(path)
    except Exception:  # noqa: BLE001 - a file the guard refuses is simply not shown
        return ""


def test_command(files: list[str]) -> str | None:
    """How the project's tests run, when it has Python tests (pytest finds them itself)."""
    if any(f.endswith(".py") and is_test_path(f) for f in files):
        return PYTEST
    return None


def run_project_tests(box, command: str) -> tuple[bool, str]:
    """(passed, output) of `command` through `box`'s run_bash_command (the sandbox), the
    output redacted, made stable (jobs/edit_engine/stable_output.py) and cut to its last
    MAX_TEST_OUTPUT_CHARS."""
    outcome = box.run("run_bash_command", {"command": command})
    passed = outcome.ok and outcome.output.startswith("exit code: 0")
    text = stable_output(redact_secrets(outcome.output))
    if len(text) > MAX_TEST_OUTPUT_CHARS:
        text = "...\n" + text[-MAX_TEST_OUTPUT_CHARS:]
    return passed, text
