"""supervisor: which workflow this is and which nodes it runs. A rule, not a model call (it
is decided by the inputs alone, and a small model gets it wrong for no gain):
- a change request and no files -> implementation (the coder writes the files first);
- files (named or from git) whose workspace tests fail now -> fix;
- files otherwise -> review (the request, if any, is what the review asks for)."""

from __future__ import annotations

from codeloop.jobs.artifacts import language_of
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext
from codeloop.review.debug import DebugTrail
from codeloop.review.state import Artifact, ReviewState, WorkflowType

_LOOP = ["security_gate", "reviewer", "refiner", "human_approval", "persistence", "self_heal"]


def decide(state: ReviewState) -> tuple[WorkflowType, str]:
    if state["request"] and not state["files"]:
        return "implementation", "a change request without files: write them first"
    if state["baseline_tests"].get("failed"):
        return "fix", f"{state['baseline_tests']['failed']} workspace test(s) fail now"
    return "review", f"{len(state['files'])} file(s) to review"


def supervise(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
              trail: DebugTrail) -> StageOutput:
    workflow, why = decide(state)
    plan = (["coder"] if workflow == "implementation" else []) + _LOOP
    trail.log("thinking", f"workflow {workflow}: {why}", {"plan": plan})
    artifacts = [Artifact(file_path=path, content=content, language=language_of(path))
                 for path, content in state["originals"].items() if content is not None]
    update = {"workflow_type": workflow, "plan": plan}
    if workflow != "implementation":
        update["artifacts"] = artifacts
    return StageOutput(update, f"{workflow}: {why}")
