"""How each step's action is asked for: two_step (the tool, then that tool's arguments, each
under its own small schema) and one_schema (one union of every tool)."""

from __future__ import annotations

import json

import pytest
from agent_replies import ARGS_REQUEST, TEXT_REQUEST, act, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.actions import action_schema, choice_schema
from codeloop.jobs.react.state import AgentLimits
from codeloop.llm.scripted import approx_tokens

LIST = act("list_files", path=".", pattern="*")


def _run(llm, repo, store, snapshots, bus=None, mode="two_step", request="go"):
    spec = agent_spec("single", repo, limits=AgentLimits(action_mode=mode), bus=bus)
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="t", bus=bus, context_first=False)
    return spec, session.ask(request)


def _enum(schema):
    return schema["properties"]["tool"]["enum"]


def test_two_step_asks_for_the_tool_then_exactly_its_arguments(repo, store, snapshots):
    llm = scripted(act("read_file", "look", path="README.md", start_line=None, end_line=None),
                   finish("A README."))
    spec, result = _run(llm, repo, store, snapshots)
    assert result.status == "finished" and result.answer == "A README."
    tools = list(spec.toolbox.tools.values())
    choice, read_args, _, finish_args = llm.schemas
    assert choice == choice_schema(tools)
    assert choice["required"] == ["thought", "tool"] and not choice["additionalProperties"]
    assert _enum(choice) == [t.name for t in tools] + ["finish"]
    assert read_args == spec.toolbox.tools["read_file"].parameters_schema(all_required=True)
    assert finish_args == spec.finish_schema
    # Call 2 repeats call 1's messages, then its reply and the request for arguments.
    first, second = llm.calls[0], llm.calls[1]
    assert second[:-2] == first
    assert second[-2].role == "assistant"
    assert json.loads(second[-2].content) == {"thought": "look", "tool": "read_file"}
    assert second[-1].role == "user"
    assert second[-1].content.startswith(ARGS_REQUEST + "read_file as JSON.")
    description = spec.toolbox.tools["read_file"].description.strip().splitlines()[0]
    assert description in second[-1].content
    assert llm.calls[3][-1].content.startswith(ARGS_REQUEST + "finish as JSON.")


def test_a_files_text_is_asked_for_as_a_block_not_inside_json(repo, store, snapshots):
    # Quotes, backslashes and a fence-free body: written exactly as the block holds them.
    body = 'PATH = "C:\\temp"\nNEWLINE = "\\n"\n'
    llm = scripted(act("write_file", "make it", path="a.py", content=body.rstrip("\n"),
                       start_line=None, end_line=None), finish("Wrote a.py."))
    spec, result = _run(llm, repo, store, snapshots)
    assert result.status == "finished"
    assert (repo.root / "a.py").read_text() == body
    _, write_args, text, _, _ = llm.schemas
    write_file = spec.toolbox.tools["write_file"]
    assert write_args == write_file.parameters_schema(all_required=True, exclude=("content",))
    assert "content" not in write_args["properties"] and text is None  # plain text, no grammar
    # Call 3 repeats call 2's messages, then its arguments and the request for the text.
    second, third = llm.calls[1], llm.calls[2]
    assert third[:-2] == second
    assert json.loads(third[-2].content) == {"path": "a.py", "start_line": None,
                                             "end_line": None}
    assert third[-1].content.startswith(TEXT_REQUEST + "the whole content of a.py in one "
                                                      "```python block")


def test_both_calls_are_counted_and_reported(repo, store, snapshots, events):
    bus, recorder = events
    replies = [LIST, finish("done")]
    llm = scripted(*replies)
    _, result = _run(llm, repo, store, snapshots, bus=bus)
    texts = [text for step in replies for text in step.replies("two_step")]
    expected = sum(sum(approx_tokens(m.content) for m in call) + approx_tokens(text)
                   for call, text in zip(llm.calls, texts, strict=True))
    assert len(llm.calls) == 4 and result.tokens == expected
    calls = recorder.of_type("llm_call")
    assert len(calls) == 4 and {c.stage for c in calls} == {"agent"}
    assert sum(c.prompt_tokens + c.completion_tokens for c in calls) == expected


def test_change_of_tack_drops_the_repeated_tool_from_the_choice(repo, store, snapshots):
    llm = scripted(LIST, LIST, LIST, act("read_file", path="README.md", start_line=None,
                                         end_line=None), finish("Only a README."))
    spec, result = _run(llm, repo, store, snapshots)
    assert result.status == "finished" and result.answer == "Only a README."
    tools = [t.name for t in spec.toolbox.tools.values()]
    tack = next(i for i, call in enumerate(llm.calls) if "three times" in call[-1].content)
    assert _enum(llm.schemas[tack]) == [t for t in tools if t != "list_files"] + ["finish"]
    assert llm.schemas[tack + 1] == spec.toolbox.tools["read_file"].parameters_schema(
        all_required=True)
    assert "list_files" in _enum(llm.schemas[0])


def test_choosing_the_dropped_tool_again_is_refused(repo, store, snapshots):
    again = json.dumps({"thought": "once more", "tool": "list_files"})
    llm = scripted(LIST, LIST, LIST, again, json.dumps({"answer": "I only listed the files."}))
    spec, result = _run(llm, repo, store, snapshots)
    assert result.status == "loop"
    assert "Asked for a different move, the model failed" in result.answer
    assert "'list_files' is not one of" in result.answer
    # list_files' arguments were never asked for: the last call asked only for finish's,
    # and the stopped turn ends with the model's own account.
    assert llm.schemas[-1] == spec.finish_schema and "No more tools" in llm.calls[-1][-1].content
    assert result.answer.endswith("\nI only listed the files.")
    assert result.result == {"answer": "I only listed the files."}


def test_an_invalid_choice_or_invalid_arguments_become_observations(repo, store, snapshots):
    bad_choice = json.dumps({"thought": "hmm", "tool": "delete_everything"})
    bad_args = act("read_file", "x", path="a")  # start_line and end_line are missing
    llm = scripted(bad_choice, bad_args, finish("ok"))
    _, result = _run(llm, repo, store, snapshots)
    assert result.status == "finished" and result.answer == "ok" and result.steps == 2
    first_note, second_note = llm.calls[1][-1].content, llm.calls[3][-1].content
    assert "not a valid action" in first_note and "delete_everything" in first_note
    assert "not a valid action" in second_note and "arguments of read_file" in second_note
    assert "start_line" in second_note and "Choose one of the tools" in second_note


def test_three_invalid_replies_in_a_row_stop_the_turn(repo, store, snapshots):
    bad_choice = json.dumps({"thought": "hmm", "action": {"tool": "finish"}})
    llm = scripted(bad_choice, act("read_file", "x", path="a"), bad_choice)
    _, result = _run(llm, repo, store, snapshots)
    assert result.status == "error"
    assert "3 replies in a row were not valid actions" in result.answer
    assert result.tokens > 0  # the invalid replies' tokens were spent, and are counted


def test_an_overflowing_arguments_call_is_retried_with_less_history(repo, store, snapshots):
    (repo.root / "big.txt").write_text("x" * 30_000)
    read = act("read_file", path="big.txt", start_line=None, end_line=None)
    choice_reply, args_reply = finish("big").replies("two_step")
    llm = scripted(read, LIST, choice_reply,
                   {"raise": "ContextOverflow", "message": "too long"}, args_reply)
    _, result = _run(llm, repo, store, snapshots)
    assert result.status == "finished" and result.answer == "big"
    choice, overflowed, retried = llm.calls[4:]
    assert overflowed[:-2] == choice  # the choice stands; only the arguments are asked again
    assert sum(len(m.content) for m in retried) < sum(len(m.content) for m in overflowed)
    assert retried[-1].content.startswith(ARGS_REQUEST + "finish")


def test_one_schema_mode_asks_once_per_step(repo, store, snapshots, events):
    bus, recorder = events
    steps = [act("write_file", path="b.py", content="B = 2\n", start_line=None, end_line=None),
             LIST, LIST, LIST, finish("Wrote b.py.")]
    llm = scripted(*steps, mode="one_schema")
    spec, result = _run(llm, repo, store, snapshots, bus=bus, mode="one_schema")
    assert result.status == "finished" and result.answer == "Wrote b.py."
    assert (repo.root / "b.py").read_text() == "B = 2\n"
    tools = list(spec.toolbox.tools.values())
    assert len(llm.calls) == len(steps) == len(recorder.of_type("llm_call"))
    assert llm.schemas[0] == action_schema(tools, spec.finish_schema)
    branches = llm.schemas[4]["properties"]["action"]["anyOf"]  # after the change of tack
    assert "list_files" not in [b["properties"]["tool"]["enum"][0] for b in branches]
    assert all(ARGS_REQUEST not in call[-1].content for call in llm.calls)


def test_one_schema_mode_invalid_reply_note(repo, store, snapshots):
    llm = scripted(act("read_file", "x", path="a"), finish("ok"), mode="one_schema")
    _, result = _run(llm, repo, store, snapshots, mode="one_schema")
    assert result.status == "finished"
    note = llm.calls[1][-1].content
    assert "not a valid action" in note and '"action": {"tool": ...' in note


def test_an_unknown_action_mode_is_refused(repo, store, snapshots):
    with pytest.raises(ValueError, match="unknown action mode"):
        _run(scripted(finish("x")), repo, store, snapshots, mode="three_step")
