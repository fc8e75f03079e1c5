"""Tech stacks: YAML files in build/stacks/ (python-api, nodejs-api, react-spa, go-api), or
a user's own file with the same fields.

A stack says where code and tests go, the command that runs the tests (in the sandbox,
without network), how dependencies get installed (a step of its own, on the host, in the
project directory, lifecycle scripts off), the config files (Jinja, with the project's
name), the hello-world files the scaffold commits, and the conventions told to the model.
"""

from __future__ import annotations

import re
import shutil
import sys
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import yaml
from jinja2 import Environment, StrictUndefined, TemplateError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

MAX_STACK_BYTES = 1_000_000


class StackError(ValueError):
    """The stack cannot be used; the message is one line for the user."""


class Requirement(BaseModel):
    model_config = ConfigDict(extra="forbid")
    binary: str = Field(pattern=r"^[A-Za-z0-9_.+-]+$")
    install: str  # what to tell the user when it is missing


class Stack(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    language: str
    src_dir: str
    test_dir: str
    test_file_glob: str
    test_command: list[str] = Field(min_length=1)
    test_env: dict[str, str] = Field(default_factory=dict)
    installed_check: list[str] = Field(default_factory=list)
    install_command: list[str] = Field(default_factory=list)
    deps_dirs: list[str] = Field(default_factory=list)
    requires: list[Requirement] = Field(default_factory=list)
    config_files: dict[str, str] = Field(default_factory=dict)
    scaffold_files: dict[str, str] = Field(default_factory=dict)
    conventions: str = ""
    # What the code prompt says of the installed libraries (the API a small model mixes up)
    code_notes: str = ""
    # Words (any case) of which one must be in the task's text or the files its code prompt
    # shows for code_notes to be shown; empty: always shown.
    code_notes_when: list[str] = Field(default_factory=list)
    # The harness's mechanical rewrites of what the installed libraries refuse at import
    # (library_mends.py: "pydantic2"), applied to every file an edit writes.
    code_mends: list[Literal["pydantic2"]] = Field(default_factory=list)
    # Where the parts are wired together, named to the integration agent (None: src_dir).
    entry_point: str | None = None
    memory_mb: int = Field(1024, ge=64, le=65536)  # the test run's memory (V8, Go: more)
    # Each test process's address space when it must exceed memory_mb (None: memory_mb):
    # V8 reserves ~10 GB for each WebAssembly memory (vite, vitest) and touches little of it.
    # The memory the run may use stays memory_mb, for the whole process tree.
    address_space_mb: int | None = Field(None, ge=64, le=131072)
    test_timeout: float = Field(120.0, gt=0, le=3600)  # seconds for one test run
    # A shell command line the task agent may run itself (run_bash_command, sandboxed, on a
    # throw-away copy) to see its tests; "" gives the agent no shell (node: V8 needs more
    # address space than the shell tool's sandbox allows).
    agent_test_command: str = ""

    @field_validator("src_dir", "test_dir", "deps_dirs", "config_files", "scaffold_files",
                     "entry_point")
    @classmethod
    def _relative_paths(cls, value: Any) -> Any:
        if value is None:
            return value
        names = value if isinstance(value, (list, dict)) else [value]
        for name in names:
            path = PurePosixPath(name)
            if path.is_absolute() or ".." in path.parts or not str(name).strip() \
                    or any(p.lower() == ".git" for p in path.parts):
                raise ValueError(f"{name!r} must be a relative path inside the project")
        return value

    def commands(self, argv: list[str]) -> list[str]:
        """`argv` with {python} as codeloop's interpreter (the sandbox mounts it)."""
        return [sys.executable if part == "{python}" else part for part in argv]

    def is_test_file(self, path: str) -> bool:
        return PurePosixPath(path).match(self.test_file_glob)


def bundled_stacks() -> list[str]:
    folder = resources.files("codeloop.build").joinpath("stacks")
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir()
                  if p.name.endswith(".yaml"))


def load_stack(name: str | None = None, stack_file: str | Path | None = None) -> Stack:
    """A bundled stack by name, or the stack in a user's YAML file."""
    if stack_file is not None:
        path = Path(stack_file)
        try:
            if path.stat().st_size > MAX_STACK_BYTES:
                raise StackError(f"{path}: larger than {MAX_STACK_BYTES} bytes")
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise StackError(f"cannot read the stack file {path}: {exc.strerror or exc}") \
                from exc
        except UnicodeDecodeError as exc:
            raise StackError(f"the stack file {path} is not UTF-8 text") from exc
        return parse_stack(text, str(path))
    if not name:
        raise StackError("no stack: give --stack (one of " + ", ".join(bundled_stacks())
                         + ") or --stack-file, or tech_stack in the request")
    if name not in bundled_stacks():
        raise StackError(f"unknown stack {name!r}; the bundled stacks are "
                         f"{', '.join(bundled_stacks())} (or give --stack-file)")
    text = resources.files("codeloop.build").joinpath("stacks", f"{name}.yaml").read_text(
        encoding="utf-8")
    return parse_stack(text, f"the bundled stack {name}")


def parse_stack(text: str, where: str) -> Stack:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise StackError(f"{where} is not valid YAML: {str(exc).splitlines()[0]}") from exc
    if not isinstance(data, dict):
        raise StackError(f"{where}: expected a mapping of stack fields")
    try:
        return Stack.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"]) or "(top level)"
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        raise StackError(f"{where}: field {field}: {message}") from exc


def missing_toolchain(stack: Stack) -> str:
    """"" when every program the stack needs is on PATH; else one line saying what to
    install."""
    for req in stack.requires:
        if shutil.which(req.binary) is None:
            return f"the {stack.name} stack needs `{req.binary}`, which is not on PATH: " \
                   f"{req.install}"
    return ""


_ENV = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)


def project_name(out_dir: Path) -> str:
    """A package-safe name from the output directory's name."""
    slug = re.sub(r"[^a-z0-9-]+", "-", out_dir.name.lower()).strip("-")
    return slug or "project"


def render_files(files: dict[str, str], name: str, where: str) -> dict[str, str]:
    """The stack's templated files with the project's name filled in."""
    out = {}
    for path, template in files.items():
        try:
            out[path] = _ENV.from_string(template).render(project_name=name)
        except TemplateError as exc:
            raise StackError(f"{where}: the template of {path}: {exc}") from exc
    return out
