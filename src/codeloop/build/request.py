"""The build request: `{tech_stack, tasks: [{id, description, implementation_details,
story_points 1-8, depends_on [], keywords []}]}`, checked before anything runs.

Every problem is one line naming the task and the field: bad fields (pydantic), duplicate
ids, unknown dependencies, cycles. `dependency_levels` and `critical_path` are computed up
front (the scheduler dispatches by dependencies, not by level; the levels are shown).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

# Task ids become git branch names (`task/<id>`) and worktree directories: plain names that
# git's ref rules (git check-ref-format) accept, checked here, not after a minute of retries.
TASK_ID_CHARS = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_TASKS = 200
MAX_REQUEST_BYTES = 2_000_000


class BuildRequestError(ValueError):
    """The request cannot be built; the message is one line for the user."""


class TaskSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str
    description: str = Field(min_length=1, max_length=4000)
    implementation_details: str = Field("", max_length=8000)
    story_points: int = Field(1, ge=1, le=8)
    depends_on: list[str] = Field(default_factory=list, max_length=MAX_TASKS)
    keywords: list[str] = Field(default_factory=list, max_length=50)

    @field_validator("id")
    @classmethod
    def _a_branch_name(cls, value: str) -> str:
        problem = task_id_problem(value)
        if problem:
            raise ValueError(problem)
        return value


def task_id_problem(task_id: str) -> str | None:
    """Why `task_id` cannot name a git branch and a directory (one clause), or None."""
    if not TASK_ID_CHARS.fullmatch(task_id):
        return "use 1-64 letters, digits, '_', '.' or '-' (it names a git branch)"
    if not task_id[0].isalnum():
        return "must start with a letter or a digit (it names a git branch)"
    if ".." in task_id:
        return "must not contain '..' (git refuses it in a branch name)"
    if task_id.lower().endswith(".lock"):
        return "must not end with '.lock' (git refuses it in a branch name)"
    if task_id.endswith("."):
        return "must not end with '.' (git refuses it in a branch name)"
    return None


class BuildRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tech_stack: str = ""
    tasks: list[TaskSpec] = Field(min_length=1, max_length=MAX_TASKS)

    def task(self, task_id: str) -> TaskSpec:
        return next(t for t in self.tasks if t.id == task_id)


def load_request(path: str | Path) -> BuildRequest:
    """The request in a JSON file; BuildRequestError (one line) for every problem."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_REQUEST_BYTES:
            raise BuildRequestError(f"{path}: larger than {MAX_REQUEST_BYTES} bytes")
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BuildRequestError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BuildRequestError(f"{path} is not valid JSON: {exc}") from exc
    return parse_request(data, where=str(path))


def parse_request(data: Any, where: str = "the request") -> BuildRequest:
    if isinstance(data, list):  # a bare task list is accepted as the tasks
        data = {"tasks": data}
    if not isinstance(data, dict):
        raise BuildRequestError(f"{where}: expected an object with 'tasks', got "
                                f"{type(data).__name__}")
    try:
        request = BuildRequest.model_validate(data)
    except ValidationError as exc:
        raise BuildRequestError(f"{where}: {_describe(exc, data)}") from exc
    check_graph(request, where)
    return request


def _describe(exc: ValidationError, data: dict[str, Any]) -> str:
    error = exc.errors()[0]
    loc = list(error["loc"])
    message = error["msg"]
    if len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int):
        raw = data.get("tasks") or []
        item = raw[loc[1]] if loc[1] < len(raw) else None
        task_id = item.get("id") if isinstance(item, dict) else None
        who = f"task {task_id!r} (tasks[{loc[1]}])" if isinstance(task_id, str) else \
            f"tasks[{loc[1]}]"
        field = ".".join(str(p) for p in loc[2:]) or "(the task itself)"
        if error["type"] == "extra_forbidden":
            message = "unknown field"
        elif error["type"] == "missing":
            message = "missing"
        elif error["type"] == "value_error":
            message = str(error.get("ctx", {}).get("error") or message)
        return f"{who} field {field}: {message}"
    field = ".".join(str(p) for p in loc) or "(top level)"
    return f"field {field}: {'unknown field' if error['type'] == 'extra_forbidden' else message}"


def check_graph(request: BuildRequest, where: str = "the request") -> None:
    """Duplicate ids, unknown dependencies and cycles, each named."""
    seen: dict[str, int] = {}
    for index, task in enumerate(request.tasks):
        if task.id in seen:
            raise BuildRequestError(f"{where}: task {task.id!r} field id: duplicate id "
                                    f"(tasks[{seen[task.id]}] and tasks[{index}])")
        seen[task.id] = index
    for task in request.tasks:
        for dep in task.depends_on:
            if dep not in seen:
                raise BuildRequestError(f"{where}: task {task.id!r} field depends_on: unknown "
                                        f"task {dep!r}")
    cycle = find_cycle({t.id: t.depends_on for t in request.tasks})
    if cycle:
        raise BuildRequestError(f"{where}: task {cycle[0]!r} field depends_on: a cycle "
                                f"{' -> '.join(cycle)}")


def find_cycle(deps: dict[str, list[str]]) -> list[str]:
    """One dependency cycle as [a, b, ..., a], or [] (iterative DFS: no recursion limit)."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    for root in deps:
        if state.get(root):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            children = deps.get(node, [])
            if i < len(children):
                stack.append((node, i + 1))
                child = children[i]
                if state.get(child) == 1:
                    return path[path.index(child):] + [child]
                if not state.get(child):
                    stack.append((child, 0))
            else:
                state[node] = 2
                path.pop()
    return []


def dependency_levels(request: BuildRequest) -> dict[str, int]:
    """Level 0: no dependencies; otherwise one more than the deepest dependency."""
    levels: dict[str, int] = {}
    pending = [t.id for t in request.tasks]
    deps = {t.id: t.depends_on for t in request.tasks}
    while pending:  # the graph is acyclic (check_graph): each pass places at least one
        for task_id in list(pending):
            if all(d in levels for d in deps[task_id]):
                levels[task_id] = 1 + max((levels[d] for d in deps[task_id]), default=-1)
                pending.remove(task_id)
    return levels


def critical_path(request: BuildRequest, weight: dict[str, float] | None = None) -> float:
    """The longest chain of dependent tasks, summing `weight` (1 per task by default): a
    lower bound on the build's time in task-units, however many run at once."""
    weight = weight or {t.id: 1.0 for t in request.tasks}
    finish: dict[str, float] = {}
    levels = dependency_levels(request)
    for task in sorted(request.tasks, key=lambda t: levels[t.id]):
        finish[task.id] = weight[task.id] + max((finish[d] for d in task.depends_on),
                                                default=0.0)
    return max(finish.values())


def dependents(request: BuildRequest, task_id: str) -> list[str]:
    """Every task that depends on `task_id`, directly or not (in request order)."""
    found: set[str] = {task_id}
    changed = True
    while changed:
        changed = False
        for task in request.tasks:
            if task.id not in found and any(d in found for d in task.depends_on):
                found.add(task.id)
                changed = True
    return [t.id for t in request.tasks if t.id in found and t.id != task_id]
