"""The build job's endpoints from its seed: generate a project from a task graph, follow its
status, list and read its files. A project id names a directory under the first --root;
its newest build run is the one these endpoints show. File reads go through the build
service's path guard: traversal, absolute paths, links out and .git are refused (404)."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated

from fastapi import APIRouter, Body, Path, Request
from fastapi.responses import PlainTextResponse

from codeloop.server.errors import ERROR_RESPONSES
from codeloop.server.job_runners import build_launch
from codeloop.server.run_access import shown_by
from codeloop.server.run_manager import RunNotFound
from codeloop.server.schemas import (
    BuildParams,
    BuildSettings,
    BuildStatus,
    GenerateStarted,
    ProjectFile,
)

router = APIRouter(prefix="/api/codegen/projects", responses=ERROR_RESPONSES)
ProjectId = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
                                description="A project name: its directory under the first "
                                "--root")]
_SCAN = 500  # build runs looked at to find a project's newest one


def _project_dir(server, project_id: str) -> FilePath:
    return server.roots.dirs[0] / project_id


def _newest_run(server, project_id: str) -> str:
    wanted = str(_project_dir(server, project_id))
    shown = shown_by(server.roots)  # a project dir swapped for a link out is not there
    for record in server.store.list_runs("build", _SCAN):
        if str((record.input or {}).get("out_dir", "")) == wanted and shown(record):
            return record.id
    raise RunNotFound(f"no build of project {project_id!r} (POST .../generate first)")


@router.post("/{project_id}/generate", status_code=202, response_model=GenerateStarted,
             summary="Build a project from a task graph (tests first, one branch per task)")
def generate(request: Request, project_id: ProjectId,
             body: Annotated[BuildSettings, Body()]) -> GenerateStarted:
    server = request.app.state.server
    params = BuildParams(**body.model_dump(), out_dir=str(_project_dir(server, project_id)))
    run_id = server.manager.start(build_launch(server.jobs, params))
    return GenerateStarted(project_id=project_id, run_id=run_id,
                           status=server.manager.current_status(run_id))


@router.get("/{project_id}/generate/status", response_model=BuildStatus,
            summary="The build's status, progress %, and tasks by state")
def generate_status(request: Request, project_id: ProjectId) -> BuildStatus:
    from codeloop.build.service import build_status

    server = request.app.state.server
    run_id = _newest_run(server, project_id)
    status = build_status(server.store, run_id)
    status["run_status"] = server.manager.live_status(run_id, status["run_status"])
    return BuildStatus(**status)


@router.get("/{project_id}/files", response_model=list[ProjectFile],
            summary="The project's files (no .git, dependencies or caches)")
def files(request: Request, project_id: ProjectId) -> list[ProjectFile]:
    from codeloop.build.service import project_files

    server = request.app.state.server
    try:
        return [ProjectFile(**f) for f in project_files(server.store,
                                                        _newest_run(server, project_id))]
    except KeyError as exc:
        raise RunNotFound(exc.args[0] if exc.args else str(exc)) from None
    except OSError as exc:  # the project directory is unreadable (permissions, gone)
        raise RunNotFound(f"the project's files cannot be read: "
                          f"{exc.strerror or type(exc).__name__}") from None


@router.get("/{project_id}/files/{file_path:path}", response_model=None,
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                             "description": "The file's text"}},
            summary="One file of the project, as text (path-guarded)")
def file(request: Request, project_id: ProjectId, file_path: str) -> PlainTextResponse:
    from codeloop.build.service import project_file

    server = request.app.state.server
    if not file_path or "\x00" in file_path:
        raise RunNotFound("no such file in the project")
    try:
        text = project_file(server.store, _newest_run(server, project_id), file_path)
    except KeyError as exc:
        raise RunNotFound(exc.args[0] if exc.args else str(exc)) from None
    except OSError as exc:  # unreadable (permissions), a name too long, a special file
        raise RunNotFound(f"{file_path}: cannot be read "
                          f"({exc.strerror or type(exc).__name__})") from None
    return PlainTextResponse(text, headers={"X-Content-Type-Options": "nosniff",
                                            "Content-Security-Policy": "default-src 'none'"})
