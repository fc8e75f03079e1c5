"""The build job for the HTTP server: start a build in the background, read its status from
the run store, list and read the project's files. Nothing heavy is imported at module level.

    run_id = start_build(store, request, out_dir="/srv/todo", stack="python-api")
    build_status(store, run_id) -> {status, progress, completed_tasks, total_tasks,
                                    current_tasks, failed_tasks, blocked_tasks, ...}
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from codeloop.build.runner import BuildInputError, BuildOptions, prepare

__all__ = ["BuildInputError", "build_status", "project_file", "project_files", "start_build"]

SKIPPED_DIRS = {".git", "node_modules", ".deps", "__pycache__", ".pytest_cache", ".venv"}
MAX_LISTED_FILES = 5_000


def start_build(store: Any, request: dict[str, Any], *, out_dir: str,
                stack: str | None = "python-api", stack_file: str | None = None,
                model: str | None = None, max_parallel: int = 3, settings: Any = None,
                llm_for: Any = None, runtime: Any = None) -> str:
    """Check the inputs (BuildInputError, nothing written), then run the build in a daemon
    thread inside `store.run("build", ...)`; returns the run id once the run exists.
    `llm_for`/`runtime`: a caller's own models or runtime (tests, a scripted demo)."""
    from codeloop.build.models import models_for
    from codeloop.build.runner import execute
    from codeloop.build.runtime import BuildRuntime
    from codeloop.config import load_config
    from codeloop.llm.base import LLMError

    inputs = prepare(request, out_dir=out_dir, stack=stack, stack_file=stack_file,
                     options=BuildOptions(max_parallel=max_parallel))
    settings = settings or load_config().settings
    if runtime is None:
        try:
            llm_for = llm_for or models_for(model, settings)
        except LLMError as exc:
            raise BuildInputError(str(exc)) from exc
        runtime = BuildRuntime(llm_for=llm_for, unsafe_no_sandbox=settings.unsafe_no_sandbox)
    # The model the runs list shows: a caller's own runtime names none (its calls will).
    recorded_model = model or (settings.model if runtime is None else None)
    started = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            with store.run("build", {**inputs.record(), "model": recorded_model}) as run:
                box["run_id"] = run.id
                started.set()
                execute(inputs, run, store, runtime)
        except BaseException as exc:  # noqa: BLE001 - recorded in the run; the thread ends
            box.setdefault("error", exc)
        finally:
            started.set()

    thread = threading.Thread(target=work, name="codeloop-build", daemon=True)
    thread.start()
    started.wait()
    if "run_id" not in box:
        raise RuntimeError(f"the build could not start: {box.get('error')}")
    return box["run_id"]


def _build_run(store: Any, run_id: str) -> Any:
    record = store.get_run(run_id)
    if record is None or record.job != "build":
        raise KeyError(f"no build run {run_id!r}")
    return record


def build_status(store: Any, run_id: str) -> dict[str, Any]:
    """The seed's status fields from the run's last state snapshot."""
    from codeloop.build.context import last_snapshot
    from codeloop.build.state import progress_percent

    record = _build_run(store, run_id)
    state = last_snapshot(store.events(run_id)) or {}
    if isinstance(record.result, dict) and record.result.get("status"):
        state = {**state, **record.result}  # the finished run's own result wins
    request_tasks = (record.input.get("request") or {}).get("tasks") or []
    status = state.get("status") or "PENDING"
    if record.status in ("failed", "cancelled", "interrupted") and \
            status not in ("COMPLETE", "FAILED"):
        status = "FAILED"  # died or stopped mid-way: not going on by itself
    return {
        "run_id": run_id,
        "status": status,
        "run_status": record.status,
        "progress": progress_percent({**state, "status": status}),
        "completed_tasks": list(state.get("completed_tasks") or []),
        "total_tasks": state.get("total_tasks") or len(request_tasks),
        "current_tasks": list(state.get("current_tasks") or []) if record.status == "running"
        else [],
        "failed_tasks": dict(state.get("failed_tasks") or {}),
        "blocked_tasks": list(state.get("blocked_tasks") or []),
        "tech_stack": state.get("tech_stack") or record.input.get("stack", ""),
        "out_dir": record.input.get("out_dir", ""),
        "error": state.get("error") or "",
    }


def _project_root(store: Any, run_id: str) -> Path:
    record = _build_run(store, run_id)
    root = Path(str(record.input.get("out_dir", "")))
    if not root.is_dir():
        raise KeyError(f"the project of {run_id} is gone ({root})")
    return root


def project_files(store: Any, run_id: str) -> list[dict[str, Any]]:
    """The project's files on main's work tree: [{"path", "size"}], sorted; no symlinks,
    git metadata, installed dependencies or caches."""
    root = _project_root(store, run_id)
    found: list[dict[str, Any]] = []
    stack = [root]
    while stack and len(found) < MAX_LISTED_FILES:
        directory = stack.pop()
        for entry in sorted(directory.iterdir()):
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name not in SKIPPED_DIRS:
                    stack.append(entry)
            elif entry.is_file():
                found.append({"path": entry.relative_to(root).as_posix(),
                              "size": entry.stat().st_size})
    return sorted(found, key=lambda f: f["path"])


def project_file(store: Any, run_id: str, path: str) -> str:
    """One file's text, read through the path guard (KeyError with one line otherwise)."""
    from codeloop.sandbox.pathguard import PathGuard, PathRefused

    root = _project_root(store, run_id)
    if any(part.lower() == ".git" for part in Path(path).parts):
        raise KeyError(f"{path}: git metadata is not served")
    try:
        data = PathGuard(root).read_bytes(path)
    except PathRefused as exc:
        raise KeyError(f"{path}: {exc}") from exc
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        raise KeyError(f"{path}: no such file in the project") from exc
    return data.decode("utf-8", errors="replace")
