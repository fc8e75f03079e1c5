"""The job kit (codeloop/jobs): model calls with events and usage, the stage wrapper, the
one prompt loader, and the agent runner, on the scripted model."""

from __future__ import annotations

import json

import pytest
from agent_replies import act, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.multi.schemas import Plan
from codeloop.agent.prompts import phase_request
from codeloop.bench.datasets import PublicProblem
from codeloop.bench.strategies.oneshot import OneShot, oneshot_prompt
from codeloop.events import EventBus, EventRecorder
from codeloop.jobs.agent_run import run_agent
from codeloop.jobs.prompts import PromptSpec, load_prompt, prompt_file
from codeloop.jobs.react.react import build_react_graph, recursion_limit
from codeloop.jobs.react.state import new_turn_input
from codeloop.jobs.stage import StageContext, StageOutput, as_node, ask_model, call_seed
from codeloop.jobs.usage import UsageRecord, per_stage
from codeloop.llm.base import JsonReply, Reply, user
from codeloop.llm.scripted import ScriptedLLM
from codeloop.tools import Workspace


@pytest.fixture
def events():
    bus, recorder = EventBus("run-k"), EventRecorder()
    bus.subscribe(recorder)
    return bus, recorder


def test_ask_model_emits_one_llm_call_per_call_and_counts_it(events):
    bus, recorder = events
    llm = ScriptedLLM(["plain words", '{"n": 3}'])
    usage = UsageRecord()
    reply = ask_model(llm, [user("say")], stage="s1", bus=bus, max_tokens=9, temperature=0.0,
                      usage=usage)
    structured = ask_model(llm, [user("json")], stage="s2", bus=bus, max_tokens=9,
                           temperature=0.0, usage=usage,
                           schema={"type": "object", "properties": {"n": {"type": "integer"}},
                                   "required": ["n"]})
    assert isinstance(reply, Reply) and reply.text == "plain words"
    assert isinstance(structured, JsonReply) and structured.data == {"n": 3}
    calls = recorder.of_type("llm_call")
    assert [c.stage for c in calls] == ["s1", "s2"]
    assert usage.calls == 2
    assert usage.prompt_tokens == sum(c.prompt_tokens for c in calls) > 0
    assert usage.completion_tokens == sum(c.completion_tokens for c in calls) > 0
    assert llm.schemas[0] is None and llm.schemas[1] is not None


def test_a_seeded_context_gives_each_sampled_call_its_own_repeatable_seed():
    sampled = PromptSpec(name="sampled", user="x", temperature=0.5)
    greedy = PromptSpec(name="greedy", user="x", temperature=0.0)

    def seeds(run_seed, specs, stream=False):
        llm = ScriptedLLM(["a"] * len(specs))
        ctx = StageContext(llm=llm, task=None, seed=run_seed, stream=stream)
        for spec in specs:
            ctx.ask(UsageRecord(), "s", [user("x")], spec)
        return llm.seeds

    order = [greedy, sampled, sampled, greedy, sampled]
    first = seeds(7, order)
    assert first[0] is None and first[3] is None  # greedy calls carry no seed
    assert len({first[1], first[2], first[4]}) == 3  # two calls never share one
    assert seeds(7, order, stream=True) == first  # the same run again: the same seeds
    assert seeds(8, order)[1:3] != first[1:3]
    assert seeds(None, order) == [None] * 5
    assert call_seed(7, 2, 0.5) == first[1] and call_seed(7, 2, 0.0) is None


def test_streaming_emits_tokens_then_the_call(events):
    bus, recorder = events
    ask_model(ScriptedLLM(["one two three"]), [user("x")], stage="s", bus=bus, max_tokens=20,
              temperature=0.0, stream=True)
    kinds = [e.type for e in recorder.events]
    assert kinds.count("llm_call") == 1 and kinds[-1] == "llm_call"
    assert "".join(e.text for e in recorder.of_type("token")) == "one two three"


def test_as_node_wraps_a_stage_in_events_and_appends_its_usage(events):
    bus, recorder = events
    ctx = StageContext(llm=ScriptedLLM(["a", "b"]), task="the task", bus=bus)
    spec = load_prompt("codeloop.solve", "analysis")

    def stage(state, ctx, usage):
        ctx.ask(usage, "thinking", [user("one")], spec)
        ctx.ask(usage, "thinking", [user("two")], spec)
        return StageOutput({"done": state["n"] + 1}, shown="two asks", ok=True)

    node = as_node("thinking", stage, ctx, detail=lambda state: f"n={state['n']}")
    update = node({"n": 1})
    assert update["done"] == 2
    [entry] = update["usage"]
    assert entry["stage"] == "thinking" and entry["calls"] == 2
    start, end = recorder.of_type("stage_start")[0], recorder.of_type("stage_end")[0]
    assert (start.stage, start.detail) == ("thinking", "n=1")
    assert (end.output, end.ok) == ("two asks", True)
    stages, total = per_stage([entry, {**entry, "seconds": 1.5}])
    assert stages["thinking"].calls == 4 == total.calls
    assert total.seconds == round(2 * entry["seconds"] + 1.5, 3)
    assert total.total_tokens == 2 * (entry["prompt_tokens"] + entry["completion_tokens"])


def test_one_loader_reads_every_job_s_prompt_files():
    spec = load_prompt("codeloop.bench", "oneshot")
    assert (spec.max_tokens, spec.temperature, spec.extra["trailing_newline"]) == (768, 0.0, True)
    assert OneShot().max_tokens == 768
    assert set(prompt_file("codeloop.agent", "agents")) >= {"loop", "phases", "single"}
    with pytest.raises(FileNotFoundError):
        prompt_file("codeloop.bench", "no-such-prompt")


def test_the_one_shot_prompt_is_the_evalplus_text_byte_for_byte():
    problem = PublicProblem(task_id="T/0", dataset="humaneval", prompt='def f(x):\n    """Double x."""\n',
                            entry_point="f")
    text = oneshot_prompt(problem)
    assert text.startswith("Please provide a self-contained Python script that solves the "
                           "following problem in a markdown code block:\n```python\n")
    assert text.endswith("\n```\n") and 'def f(x):\n    """Double x."""' in text


def test_phase_requests_read_as_the_orchestrator_wrote_them():
    plan = json.dumps({"analysis": "é"}, indent=1, ensure_ascii=False)
    assert phase_request("planning", request="add x") == (
        "Request: add x\n\nStudy the workspace as needed, then finish with the plan.")
    assert phase_request("implementation", request="add x", plan=plan, fix_round=0,
                         fix_instructions="", issues=[]) == (
        f"Request: add x\n\nPlan:\n{plan}\n\nCarry out the plan, then finish with your report.")
    assert phase_request("implementation", request="add x", plan=plan, fix_round=2,
                         fix_instructions="rename it", issues=["bad name", "no test"]) == (
        f"Request: add x\n\nPlan:\n{plan}\n\nThe validator asked for fixes (round 2):\n"
        "rename it\nIssues:\n- bad name\n- no test")
    assert phase_request("validation", request="r", plan=plan, report="{}", tests="",
                         command=None, passed=False) == (
        f"Request: r\n\nPlan:\n{plan}\n\nImplementer's report:\n{{}}\n\n"
        "Check the changes, then finish with your review.")
    assert phase_request("validation", request="r", plan=plan, report="{}", tests="1 failed",
                         command="python -m pytest", passed=False) == (
        f"Request: r\n\nPlan:\n{plan}\n\nImplementer's report:\n{{}}\n\n"
        "The project's tests (python -m pytest) FAIL:\n```\n1 failed\n```\n\n"
        "Check the changes, then finish with your review.")


PLAN = {"analysis": "nothing to do", "files_to_create": [], "files_to_modify": [],
        "steps": [], "considerations": []}


def test_run_agent_returns_the_validated_output(tmp_path, events):
    bus, recorder = events
    spec = agent_spec("planner", Workspace.at(tmp_path), finish=Plan, bus=bus)
    run = run_agent(scripted(act("finish", **PLAN)), spec, "plan it", Plan, bus=bus,
                    role="planner")
    assert run.output == Plan(**PLAN).model_dump() and run.problem == "" and run.notes == []
    assert run.status == "finished" and run.tokens > 0
    end = recorder.of_type("stage_end")[-1]
    assert end.stage == "planning" and end.ok and json.loads(end.output) == run.output


def test_run_agent_says_why_there_is_no_output(tmp_path):
    spec = agent_spec("planner", Workspace.at(tmp_path), finish=Plan)
    llm = scripted({"raise": "BackendUnreachable", "message": "server down"})
    run = run_agent(llm, spec, "plan it", Plan, role="planner")
    assert run.output is None and run.status == "error"
    assert run.problem.startswith("the planner did not finish:") and "server down" in run.problem
    assert run.notes == [run.problem]


def test_invalid_replies_have_their_own_counter(tmp_path):
    spec = agent_spec("single", Workspace.at(tmp_path))
    bad = act("read_file", "x", path="a")  # start_line and end_line missing: invalid
    graph = build_react_graph(scripted(bad, act("finish", answer="done")), spec)
    config = {"recursion_limit": recursion_limit(spec.limits)}
    thinks = [update["think"] for update in
              graph.stream(new_turn_input("go", 1), config, stream_mode="updates")
              if "think" in update]
    # One invalid reply, then reset by a valid action; never a key among the actions seen.
    assert [think["invalid_replies"] for think in thinks] == [1, 0]
    assert all(not any(key.startswith("__") for key in think.get("seen", {}))
               for think in thinks)
