"""The review job's state: a TypedDict with every field set by `create_initial_state()`.

Nodes return only the keys they change. Lists that only grow (`code_diffs`, `debug_logs`,
`error_log`, `usage`, `refinements`) have append reducers. `pending_diffs` is what the person
approves: it must show the CURRENT change, not every change ever proposed, so its reducer
appends unless the update starts with the RESET marker, which replaces the list (the
human_approval node sends `[RESET, *diffs]` each round). Everything is plain JSON data, so
the checkpointer keeps it as is.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from codeloop.jobs.artifacts import Artifact

MAX_ITERATIONS = 3  # reviewer runs in one round before the run fails
MAX_REFINEMENT_ITERATIONS = 5  # refiner calls in the whole run
MAX_RETRIES = 3  # human rejections before the run is blocked
BLOCKED = "Agent failed to self-heal - manual intervention required"

WorkflowType = Literal["implementation", "review", "fix"]
WorkflowStatus = Literal["running", "awaiting_approval", "applied", "failed", "blocked",
                         "rejected"]
ApprovalStatus = Literal["pending", "approved", "rejected"]
RefinerMode = Literal["diff", "full"]

RESET: dict[str, Any] = {"__reset__": True}


def reset_or_append(old: list[dict], new: list[dict]) -> list[dict]:
    """The pending_diffs reducer: `[RESET, *items]` replaces the list, anything else appends."""
    if new and new[0] == RESET:
        return list(new[1:])
    return [*old, *new]


class CodeDiff(TypedDict):
    file_path: str
    original_content: str
    modified_content: str
    diff_hunks: str  # unified diff text
    description: str
    added: int
    removed: int


class ReviewState(TypedDict):
    # inputs
    run_id: str  # the run store's id (also the checkpoint thread); history entries name it
    workspace: str  # the resolved root; every file access goes through a PathGuard on it
    workspace_id: list[int]  # its [st_dev, st_ino] at the start: the guard refuses another dir
    request: str  # "" when none
    files: list[str]  # the files named (or found from git_rev), workspace-relative
    git_rev: str  # "" when none
    refiner_mode: RefinerMode
    model: str
    # context_loader
    repo_map: str  # files and their top-level definitions, a few lines each
    originals: dict[str, str | None]  # path -> content on disk at load (None: a new file)
    git_diff: str  # the reviewed commit's changes (clipped), "" when none
    history: list[dict]  # .ai_context.json's workflow_history when loaded
    test_files: list[str]  # the workspace's pytest files
    baseline_tests: dict  # the workspace's tests before any change: {ran, passed, failed, ...}
    # supervisor
    workflow_type: WorkflowType
    plan: list[str]  # the nodes this workflow runs, in order
    # the change, held in state (nothing is written before approval)
    artifacts: list[Artifact]
    security_findings: list[dict]  # the latest gate's findings on the artifacts
    refused_paths: list[dict]  # path-guard refusals (HIGH findings; those artifacts dropped)
    gate_refusals: list[dict]  # the latest gate's refusals: HIGH, they block that review
    review_feedback: dict | None
    # the request as a test (request_test.py): None before the reviewer tried, {} when no
    # test it wrote failed on the code under review, else {path, content, reproduced}
    request_test: dict | None
    # control
    approval_status: ApprovalStatus
    workflow_status: WorkflowStatus
    iteration: int  # reviewer runs in this round (reset when a person rejects)
    refinement_iteration: int  # refiner calls in the whole run
    retry_count: int  # human rejections so far
    is_fixed: bool  # the latest review passed
    last_error: str | None  # the concrete failure the refiner works on
    human_message: str  # the person's last word (approval or rejection)
    approved_digest: str  # the digest of the pending diffs the person approved (approval.py)
    written: list[str]  # files persistence wrote
    # grow-only records
    code_diffs: Annotated[list[CodeDiff], operator.add]
    pending_diffs: Annotated[list[CodeDiff], reset_or_append]
    debug_logs: Annotated[list[dict], operator.add]
    error_log: Annotated[list[str], operator.add]
    usage: Annotated[list[dict[str, Any]], operator.add]  # jobs.usage.stage_entry per node
    refinements: Annotated[list[dict[str, Any]], operator.add]  # one per refiner call


def create_initial_state(*, workspace: str, run_id: str = "", request: str = "",
                         files: list[str] | None = None, git_rev: str = "",
                         refiner_mode: RefinerMode = "diff", model: str = "",
                         workspace_id: list[int] | None = None) -> ReviewState:
    """Every field set: optional ones None, lists empty, counters 0."""
    return ReviewState(
        run_id=run_id, workspace=workspace, workspace_id=list(workspace_id or []),
        request=request, files=list(files or []),
        git_rev=git_rev,
        refiner_mode=refiner_mode, model=model,
        repo_map="", originals={}, git_diff="", history=[], test_files=[], baseline_tests={},
        workflow_type="review", plan=[],
        artifacts=[], security_findings=[], refused_paths=[], gate_refusals=[],
        review_feedback=None, request_test=None,
        approval_status="pending", workflow_status="running",
        iteration=0, refinement_iteration=0, retry_count=0, is_fixed=False,
        last_error=None, human_message="", approved_digest="", written=[],
        code_diffs=[], pending_diffs=[], debug_logs=[], error_log=[], usage=[], refinements=[],
    )
