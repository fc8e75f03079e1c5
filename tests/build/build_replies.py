"""Scripted replies for the build job's agents, as the kit's edit engine reads them (a
`FILE: path` line and a fenced block per file), and ready-made task scripts that write real
files.

A task's script is its test file (one fenced block: the task's test path is chosen by the
job, not the model), then the code, then one reply per fix round. The integration's script
is its wiring reply (`no_wiring()` when nothing needs wiring); a merge's, the resolved file.
"""

from __future__ import annotations

from typing import Any

FENCE = {".py": "python", ".js": "javascript", ".jsx": "jsx", ".go": "go"}


def _fence(path: str) -> str:
    return next((lang for ext, lang in FENCE.items() if path.endswith(ext)), "")


def reply_with_tests(text: str) -> str:
    """The tests step's reply: the test file in one block."""
    return f"```python\n{text.rstrip()}\n```"


def file_reply(*files: tuple[str, str]) -> str:
    """An edit reply: each (path, text) as `FILE: path` and a fenced block."""
    return "\n\n".join(f"FILE: {path}\n```{_fence(path)}\n{text.rstrip()}\n```"
                       for path, text in files)


def no_wiring() -> list[str]:
    """The integration's reply when nothing needs wiring (the engine writes nothing)."""
    return ["DONE"]


def task_script(test_path: str, test_text: str, code_path: str, code_text: str,
                fixes: list[tuple[str, str]] | None = None) -> list[str | dict[str, Any]]:
    """One attempt: the tests, then the code, then one reply per (path, text) fix round.
    (`test_path` is where the job puts the tests: kept to name them in failures.)"""
    del test_path
    return [reply_with_tests(test_text), file_reply((code_path, code_text)),
            *(file_reply(fix) for fix in fixes or [])]


def func_task(name: str, value: str, *, test_extra: str = "",
              code: str | None = None) -> list[str | dict[str, Any]]:
    """A task whose tests (tests/test_<name>.py) assert <name>() == value and whose code
    (app/<name>.py) returns value, or is `code`."""
    test = (f"{test_extra}from app.{name} import {name}\n\n\n"
            f"def test_{name}():\n    assert {name}() == {value}\n")
    body = code if code is not None else f"def {name}():\n    return {value}\n"
    return task_script(f"tests/test_{name}.py", test, f"app/{name}.py", body)


def tasks(*specs: tuple[str, ...], keywords: bool = True) -> dict[str, Any]:
    """A python-api request: each spec is (id, *depends_on); the keyword names the files."""
    return {"tech_stack": "python-api", "tasks": [
        {"id": t, "description": f"the {t.lower()} function", "depends_on": list(deps),
         **({"keywords": [t.lower()]} if keywords else {})}
        for t, *deps in specs]}


def search_replace(path: str, old: str, new: str) -> str:
    """An edit reply changing `old` to `new` in `path` with a SEARCH/REPLACE block."""
    return (f"FILE: {path}\n<<<<<<< SEARCH\n{old.rstrip()}\n=======\n{new.rstrip()}\n"
            ">>>>>>> REPLACE")
