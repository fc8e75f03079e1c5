"""The edit engine: the one way a job has a model change files (principle 15).

Context first: the files that matter in one prompt with the concrete failure; whole files,
functions or SEARCH/REPLACE blocks back, read tolerantly (malformed blocks and bare code for
a target are used, not dropped); merged by name against the original (what the model did not
mean to change is kept); writes through a guarded site; the harness runs the checks; a fresh
prompt per round; an echo meets another framing; the request's parts checked after a pass.

The agent's direct edit (jobs/react/context_first.py), review's coder and refiner and build's
task agents call it. A job adds its own context (EditTask.context) and checks (its site).

Public API (stable; the names below are what jobs import from `codeloop.jobs.edit_engine`):

    EditTask(request, files, edit, spec=[], new=[], failure=None, context="",
             protect_tests=True, whole_files=False, trusted=[])
    EditSite: a protocol, write(path, text) -> None | why refused; check() -> Check | None
    ToolboxSite(box, command): a workspace on disk through an agent toolbox
    Check(passed, output="", label="")
    run_edit(llm, task, site, *, rounds=3, bus=None, stage="edit", usage=None, say=None,
             sample_first=False)
        -> EditResult(files, passed, check, rounds, calls, prompt_tokens,
                      completion_tokens, notes, prompts, replies; .tokens)
    plan_context(request, files, read) -> Plan | None: which files a request needs
    test_command(files) -> str | None: how the project's Python tests run

Usage, a build task agent on its worktree (its toolbox is the agent toolbox of the task)::

    from codeloop.jobs.edit_engine import EditTask, ToolboxSite, plan_context, run_edit, \\
        test_command

    files = box.workspace.walk_files()
    plan = plan_context(request, files, box.workspace.read_text)
    task = EditTask(request=request,
                    files={p: box.workspace.read_text(p) for p in plan.edit + plan.spec},
                    edit=plan.edit, spec=plan.spec, new=plan.new,
                    context="Modules earlier tasks built: models.py, storage.py")
    site = ToolboxSite(box, test_command(files + plan.new))
    result = run_edit(llm, task, site, rounds=3, bus=bus, stage="task")
    if not result.passed:
        ...  # result.check.output says what still fails; result.notes what went wrong
"""

from codeloop.jobs.edit_engine.api import Check, EditResult, EditSite, EditTask, ToolboxSite
from codeloop.jobs.edit_engine.context_plan import Plan, plan_context, test_command
from codeloop.jobs.edit_engine.rounds import run_edit

__all__ = ["Check", "EditResult", "EditSite", "EditTask", "Plan", "ToolboxSite",
           "plan_context", "run_edit", "test_command"]
