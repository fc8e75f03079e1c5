"""Function-level tasks: the `Task` model, task files, and the bundled default tasks.

A task file is a JSON list of `{task_id, signature, docstring, examples?, context?}`.
Errors name the file, the entry and the field, so a user can fix the file at once.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, computed_field, field_validator

from codeloop.user_files import read_json


class TaskFileError(ValueError):
    """A task file is missing, unreadable, or an entry in it is malformed."""


class UnknownTaskError(LookupError):
    """A task id that no task file holds; the message lists the ids there are."""


def _parse_signature(signature: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """Parse `def name(params) -> ret:` (with or without the colon) into its ast node."""
    text = signature.strip()
    if not text.startswith(("def ", "async def ")):
        raise ValueError("must start with 'def '")
    if not text.endswith(":"):
        text += ":"
    try:
        tree = ast.parse(text + "\n    ...\n")
    except SyntaxError as exc:
        raise ValueError(f"is not a valid Python function signature ({exc.msg})") from None
    node = tree.body[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return node


class Task(BaseModel):
    """One function to write. `context` is code that must precede it (imports, helpers)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    task_id: str
    signature: str
    docstring: str
    examples: str = ""
    context: str = ""
    # The task as Python source exactly as it was given (a HumanEval prompt, EvalPlus' MBPP
    # docstring), shown to the model verbatim: re-rendering it changes the tokens and so a
    # small model's answers.
    source: str = ""
    # False when the signature was inferred from a call (MBPP: `def f(a, b):`): review then
    # checks the number and kinds of parameters only, since their names are not known.
    parameter_names: bool = True

    @field_validator("task_id")
    @classmethod
    def _task_id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    @field_validator("signature")
    @classmethod
    def _signature_parses(cls, value: str) -> str:
        _parse_signature(value)
        return value.strip()

    @computed_field  # type: ignore[prop-decorator]
    @property
    def entry_point(self) -> str:
        return _parse_signature(self.signature).name

    def signature_node(self) -> ast.FunctionDef | ast.AsyncFunctionDef:
        return _parse_signature(self.signature)

    def unstated_examples(self, shown_in: str | None = None) -> list[str]:
        """The example lines that `shown_in` (default: the docstring) does not already show
        (HumanEval's examples are taken from its docstring; a task file's are not in it).
        A line `assert X` shows the example `X` (and `X == True`)."""
        shown = set()
        for line in (self.docstring if shown_in is None else shown_in).splitlines():
            line = line.strip()
            bare = line.removeprefix("assert ").strip()
            shown |= {line, bare, f"{bare} == True"}
        return [line.strip() for line in self.examples.splitlines()
                if line.strip() and line.strip() not in shown]

    def function_stub(self) -> str:
        """The signature with its docstring and examples, as a Python source stub: the
        model is shown every example its code will be tested on."""
        header = self.signature if self.signature.endswith(":") else self.signature + ":"
        doc = textwrap.dedent(self.docstring).strip("\n")
        if examples := self.unstated_examples():
            doc += "\n\nExamples:\n" + "\n".join(examples)
        quote = "'''" if '"""' in doc else '"""'
        body = textwrap.indent(f"{quote}\n{doc}\n{quote}", "    ")
        return f"{header}\n{body}\n"

    def prompt_source(self) -> str:
        """What a model is shown: the source as given when there is one and it states every
        example; otherwise the context, then the stub (the shape of a HumanEval prompt)."""
        if self.source.strip() and not self.unstated_examples(self.source):
            return self.source.strip()
        context = self.context.strip("\n")
        return (context + "\n\n\n" if context else "") + self.function_stub()

    @classmethod
    def from_prompt(cls, task_id: str, prompt: str, entry_point: str | None = None,
                    examples: str = "") -> Task:
        """Split a HumanEval-style prompt (context + `def` + docstring) into a Task.

        The function is the last top-level `def` (or the one named `entry_point`); whatever
        precedes it is the context."""
        tree = ast.parse(prompt)
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if entry_point:
            defs = [n for n in defs if n.name == entry_point]
        if not defs:
            raise ValueError(f"{task_id}: the prompt defines no function {entry_point or ''}")
        node = defs[-1]
        lines = prompt.splitlines()
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        body_start = node.body[0].lineno - 1
        signature = "\n".join(lines[first:body_start]).rstrip()
        return cls(task_id=task_id, signature=signature, docstring=_description(node),
                   examples=examples, context="\n".join(lines[:first]).strip("\n"),
                   source=prompt)


def _description(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function's docstring; also when imports come before it in the body
    (`import math`, then the description): Python then has no docstring, but the text and
    its examples are still the task's."""
    for statement in node.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
                and isinstance(statement.value.value, str):
            return inspect.cleandoc(statement.value.value)
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            break
    return ""


# ---------------------------------------------------------------- task files


def _describe_error(err: dict) -> str:
    field = ".".join(str(p) for p in err["loc"]) or "entry"
    msg = err["msg"]
    if err["type"] == "missing":
        return f"missing field '{field}'"
    if err["type"] == "extra_forbidden":
        return f"unknown field '{field}'"
    return f"field '{field}': {msg.removeprefix('Value error, ')}"


def load_task_file(path: Path | str) -> list[Task]:
    path = Path(path).expanduser()
    data = read_json(path, TaskFileError, "task file")
    if not isinstance(data, list):
        raise TaskFileError(f"{path}: expected a JSON list of tasks, got {type(data).__name__}")
    tasks: list[Task] = []
    seen: set[str] = set()
    for index, entry in enumerate(data):
        label = f"{path}: entry #{index + 1}"
        if isinstance(entry, dict) and isinstance(entry.get("task_id"), str):
            label += f" ({entry['task_id']})"
        if not isinstance(entry, dict):
            raise TaskFileError(f"{label}: expected an object, got {type(entry).__name__}")
        try:
            task = Task.model_validate(entry)
        except ValidationError as exc:
            problems = "; ".join(_describe_error(e) for e in exc.errors())
            raise TaskFileError(f"{label}: {problems}") from None
        if task.task_id in seen:
            raise TaskFileError(f"{label}: duplicate task_id '{task.task_id}'")
        seen.add(task.task_id)
        tasks.append(task)
    return tasks


def select_task(tasks: list[Task], task_id: str, where: str = "the task file") -> Task:
    for task in tasks:
        if task.task_id == task_id:
            return task
    ids = ", ".join(t.task_id for t in tasks) or "(none)"
    raise UnknownTaskError(f"unknown task id '{task_id}' in {where}; the ids there are: {ids}")


# ---------------------------------------------------------------- bundled tasks


def bundled_examples_dir() -> Path | None:
    """The `examples/` directory shipped with codeloop.

    Looked for, in order: $CODELOOP_EXAMPLES_DIR, the source checkout this package runs from
    (editable installs), and `./examples` in the current directory."""
    candidates: list[Path] = []
    if os.environ.get("CODELOOP_EXAMPLES_DIR"):
        candidates.append(Path(os.environ["CODELOOP_EXAMPLES_DIR"]).expanduser())
    package_root = Path(__file__).resolve().parents[1]  # src/codeloop
    candidates += [package_root / "examples", package_root.parents[1] / "examples",
                   Path.cwd() / "examples"]
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.glob("*/*-tasks.json")):
            return candidate
    return None


def bundled_task_files() -> list[Path]:
    root = bundled_examples_dir()
    return sorted(root.glob("*/*-tasks.json")) if root else []


def load_bundled_tasks() -> list[tuple[Path, Task]]:
    """Every bundled task with the file it came from (for its matching test file)."""
    files = bundled_task_files()
    if not files:
        raise TaskFileError("no bundled task files found (looked for examples/*/*-tasks.json; "
                            "set CODELOOP_EXAMPLES_DIR or pass --task-file)")
    return [(path, task) for path in files for task in load_task_file(path)]


def matching_test_file(task_file: Path) -> Path | None:
    """`strings-tasks.json` -> `strings-tests.py` beside it, when it exists."""
    name = task_file.name.removesuffix("-tasks.json")
    candidate = task_file.with_name(f"{name}-tests.py")
    return candidate if name != task_file.name and candidate.is_file() else None
