"""The API's request and response bodies (they are its OpenAPI schema at /docs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from codeloop.build.request import BuildRequest as BuildRequestIn

_Strict = ConfigDict(extra="forbid")
Model = Annotated[str | None, Field(default=None, max_length=500,
                                    description="Model spec; default: the server's model")]


class ErrorBody(BaseModel):
    error: str = Field(description="What kind of error (one word or a few)")
    detail: str = Field(description="One line: what is wrong and what to do")


class SolveTaskIn(BaseModel):
    model_config = _Strict
    task_id: str = Field("task", min_length=1, max_length=200)
    signature: str = Field(min_length=5, max_length=2000, examples=["def add(a, b)"],
                           pattern=r"^\s*(async\s+)?def\s")
    docstring: str = Field(min_length=1, max_length=20_000)
    examples: str = Field("", max_length=20_000, examples=["add(1, 2) == 3"])
    context: str = Field("", max_length=50_000)


class SolveParams(BaseModel):
    model_config = _Strict
    task: SolveTaskIn
    model: Model = None
    max_refinements: int = Field(3, ge=0, le=3)
    samples_per_round: int = Field(1, ge=1, le=3)  # codeloop solve --samples-per-round
    seed: int | None = Field(None, ge=0, le=2**32 - 1)  # codeloop solve --seed
    plan_first: bool = False
    crosscheck: bool = False  # untested code compared with samples (codeloop solve --crosscheck)
    edge_checks: bool = True  # crashes on empty/one-item inputs (codeloop solve --no-edge-checks)
    vote: bool = False  # refined code meets an independent sample (codeloop solve --vote)


class AgentParams(BaseModel):
    model_config = _Strict
    workspace: str = Field(min_length=1, max_length=4096,
                           description="A directory under one of the server's --root dirs")
    request: str = Field(min_length=1, max_length=20_000)
    multi_agent: bool = False
    thread: str = Field("default", min_length=1, max_length=100,
                        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    model: Model = None
    max_steps: int = Field(20, ge=1, le=200)
    token_budget: int = Field(60_000, ge=1, le=2_000_000)
    init_git: bool = Field(False, description="When the workspace is not a git repository: "
                           "make it one (git init, then a first commit of every file there). "
                           "Without it such a workspace is a 400 and nothing is written.")


class ReviewParams(BaseModel):
    model_config = _Strict
    workspace: str = Field(min_length=1, max_length=4096,
                           description="A directory under one of the server's --root dirs")
    request: str | None = Field(None, max_length=20_000)
    files: list[Annotated[str, Field(max_length=4096)]] = Field(default_factory=list,
                                                                 max_length=200)
    git_rev: str | None = Field(None, max_length=200)
    refiner: Literal["diff", "full"] = "diff"
    model: Model = None
    approve: bool = Field(False, description="Apply at the approval step without waiting")


class AskParams(BaseModel):
    """codeloop ask's inputs: a question about a repository (or none, for a general one)."""

    model_config = _Strict
    question: str = Field(min_length=1, max_length=4000,
                          examples=["Where is the inventory value computed?"])
    repo: str | None = Field(None, min_length=1, max_length=4096,
                             description="The repository to analyse or ask about: a "
                             "directory under one of the server's --root dirs")
    task_type: Literal["analyze_repo", "answer_question", "generate_content",
                       "general"] | None = Field(None, description="Skip detection")
    model: Model = None
    retrieval: bool = True  # codeloop ask --no-retrieval: the most central files instead
    max_iterations: int = Field(10, ge=1, le=50)


class BuildSettings(BaseModel):
    """How a build runs: its task graph (the build job's request), stack, model, width."""

    model_config = _Strict
    request: BuildRequestIn
    stack: str | None = Field(None, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                              description="A bundled stack (python-api, nodejs-api, go-api, "
                              "react-spa); default: the request's tech_stack")
    model: Model = None
    max_parallel: int = Field(3, ge=1, le=8)


class BuildParams(BuildSettings):
    out_dir: str = Field(min_length=1, max_length=4096, description="The new project's "
                         "directory, under a --root (created; must be empty or absent: the "
                         "build makes its new project a git repository, never a directory "
                         "that already holds files)")


class GenerateStarted(BaseModel):
    project_id: str
    run_id: str
    status: str


class BuildStatus(BaseModel):
    run_id: str
    status: str
    run_status: str
    progress: float
    completed_tasks: list[str]
    total_tasks: int
    current_tasks: list[str]
    failed_tasks: dict[str, Any]
    blocked_tasks: list[str]
    tech_stack: str
    out_dir: str
    error: str


class ProjectFile(BaseModel):
    path: str
    size: int


class StartSolve(BaseModel):
    model_config = _Strict
    job: Literal["solve"]
    params: SolveParams


class StartAgent(BaseModel):
    model_config = _Strict
    job: Literal["agent"]
    params: AgentParams


class StartReview(BaseModel):
    model_config = _Strict
    job: Literal["review"]
    params: ReviewParams


class StartBuild(BaseModel):
    model_config = _Strict
    job: Literal["build"]
    params: BuildParams


class StartAsk(BaseModel):
    model_config = _Strict
    job: Literal["ask"]
    params: AskParams


StartRun = Annotated[StartSolve | StartAgent | StartReview | StartBuild | StartAsk,
                     Field(discriminator="job")]


# A run's status and outcome as every surface describes them (the API, the MCP tools).
STATUS_FIELD = Field(description="queued, running, awaiting_approval, succeeded, failed, "
                     "cancelled or interrupted (the same set for every job)")
OUTCOME_FIELD = Field("", description="The job's own result beside the status: tests "
                      "passed, untested, applied, blocked: …, 3 of 5 tasks merged, …")


class Started(BaseModel):
    run_id: str
    job: str
    status: str
    resumed_from: str | None = None


class RunSummary(BaseModel):
    id: str
    job: str
    status: str = STATUS_FIELD
    outcome: str = OUTCOME_FIELD
    asked: str = Field("", description="What the run was asked (request, question, task)")
    model: str | None
    tokens: int
    started: float
    ended: float | None
    age_seconds: float


class RunList(BaseModel):
    runs: list[RunSummary]
    total: int
    limit: int
    offset: int


class StageTokens(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0


class RunDetail(RunSummary):
    input: dict[str, Any]
    result: Any
    tokens_per_stage: dict[str, StageTokens]
    events: int
    live: bool
    pending_diffs: list[dict[str, Any]] = Field(default_factory=list)
    findings: list[dict[str, Any]] = Field(default_factory=list)
    review_feedback: dict[str, Any] | None = None
    message: str = ""
    diff_digest: str = Field("", description="sha256 of pending_diffs: an approve names it")
    build: BuildStatus | None = None
    project_id: str | None = Field(None, description="A build's project, for the "
                                   "/api/codegen/projects endpoints")


class Decision(BaseModel):
    model_config = _Strict
    message: str = Field("", max_length=10_000)
    digest: str | None = Field(None, pattern=r"^[0-9a-fA-F]{64}$",
                               description="diff_digest of the pending diffs shown to the "
                               "person (GET /api/runs/{id}); required to approve")


class Accepted(BaseModel):
    run_id: str
    status: str
    detail: str = ""
