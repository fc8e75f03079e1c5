"""Scripted replies for the build job's agents (two_step mode: the tool, its JSON arguments,
then each text argument as a ``` block), and ready-made task scripts that write real files.

`write(path, text)`, `read(path)`, `finish(summary)` are steps; `replies(*steps)` the model's
replies for them, in order.
"""

from __future__ import annotations

import json
from typing import Any


def write(path: str, text: str) -> list[str]:
    return [json.dumps({"thought": f"write {path}", "tool": "write_file"}),
            json.dumps({"path": path, "start_line": None, "end_line": None}),
            f"```\n{text.rstrip()}\n```"]


def read(path: str) -> list[str]:
    return [json.dumps({"thought": f"read {path}", "tool": "read_file"}),
            json.dumps({"path": path, "start_line": None, "end_line": None})]


def finish(summary: str = "done") -> list[str]:
    return [json.dumps({"thought": "done", "tool": "finish"}),
            json.dumps({"summary": summary})]


def replies(*steps: list[str]) -> list[str | dict[str, Any]]:
    out: list[str | dict[str, Any]] = []
    for step in steps:
        out += step
    return out


def task_script(test_path: str, test_text: str, code_path: str, code_text: str,
                fixes: list[tuple[str, str]] | None = None) -> list[str | dict[str, Any]]:
    """One attempt: tests first (write, finish), then the code (read the tests, write,
    finish), then one fix run per (path, text) in `fixes` (read the failing test file, which
    the failure names, and the file; rewrite it; finish)."""
    steps = [write(test_path, test_text), finish("tests written"),
             read(test_path), write(code_path, code_text), finish("code written")]
    for path, text in fixes or []:
        steps += [read(test_path), read(path), write_existing(path, text), finish("fixed")]
    return replies(*steps)


def write_existing(path: str, text: str) -> list[str]:
    return write(path, text)


def edit(path: str, old: str, new: str) -> list[str]:
    return [json.dumps({"thought": f"edit {path}", "tool": "edit_file"}),
            json.dumps({"path": path}),
            f"```\n{old.rstrip()}\n```", f"```\n{new.rstrip()}\n```"]


def func_task(name: str, value: str, *, test_extra: str = "",
              code: str | None = None) -> list[str | dict[str, Any]]:
    """A task whose agent writes tests/test_<name>.py (asserting <name>() == value) and then
    app/<name>.py (returning value, or `code`)."""
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


def shell(command: str) -> list[str]:
    return [json.dumps({"thought": "run the tests", "tool": "run_bash_command"}),
            json.dumps({"command": command, "timeout": None})]
