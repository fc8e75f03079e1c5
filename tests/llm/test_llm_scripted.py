"""ScriptedLLM: the offline model every agent test runs on."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from codeloop.llm.base import (
    LLM,
    BackendTimeout,
    InvalidStructuredOutput,
    Reply,
    ScriptExhausted,
    system,
    user,
)
from codeloop.llm.scripted import ScriptedLLM, ScriptFileError


class Verdict(BaseModel):
    ok: bool
    reason: str


def test_replies_come_in_order_and_calls_are_recorded():
    llm = ScriptedLLM(["first", {"reply": "second"}])
    assert isinstance(llm, LLM)
    assert llm.complete([user("a")]).text == "first"
    assert llm.complete([system("s"), user("b")]).text == "second"
    assert [m.content for m in llm.calls[1]] == ["s", "b"]
    assert llm.remaining == 0


def test_the_schema_of_each_call_is_recorded():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    llm = ScriptedLLM(["plain", '{"n": 1}', '{"ok": true, "reason": "r"}'])
    llm.complete([user("a")])
    assert llm.complete_json([user("b")], schema).data == {"n": 1}
    llm.complete_json([user("c")], Verdict)
    assert llm.schemas[:2] == [None, schema]
    assert llm.schemas[2] == Verdict.model_json_schema() and len(llm.calls) == 3


def test_usage_is_about_four_characters_a_token():
    reply = ScriptedLLM(["x" * 40]).complete([user("y" * 80)])
    assert reply.usage.prompt_tokens == 20
    assert reply.usage.completion_tokens == 10
    assert reply.model == "scripted"


def test_exhaustion_says_how_many_replies_and_which_prompt():
    llm = ScriptedLLM(["only one"])
    llm.complete([user("first question")])
    with pytest.raises(ScriptExhausted) as err:
        llm.complete([user("the second question nobody scripted")])
    message = str(err.value)
    assert "1 ordered reply" in message
    assert "call #2" in message
    assert "the second question nobody scripted" in message


def test_match_rules_answer_before_ordered_replies_and_respect_times():
    llm = ScriptedLLM([
        {"match": "lint", "reply": "no findings", "times": 1},
        {"match": r"test \d+", "reply": "tests pass"},
        "ordered",
    ])
    assert llm.complete([user("please lint this")]).text == "no findings"
    assert llm.complete([user("run test 42")]).text == "tests pass"  # regex
    assert llm.complete([user("lint again")]).text == "ordered"  # rule used up
    assert llm.complete([user("test 7")]).text == "tests pass"  # unlimited rule
    with pytest.raises(ScriptExhausted, match="none of its 2 match rule"):
        llm.complete([user("lint")])


def test_rules_look_at_the_last_user_message_only():
    llm = ScriptedLLM([{"match": "secret", "reply": "matched"}, "plain"])
    reply = llm.complete([system("secret system text"), user("nothing here")])
    assert reply.text == "plain"


def test_complete_json_validates_against_pydantic_model():
    llm = ScriptedLLM([{"json": {"ok": True, "reason": "fine"}}, '{"ok": "maybe"}'])
    result = llm.complete_json([user("judge")], Verdict)
    assert result.data == Verdict(ok=True, reason="fine")
    with pytest.raises(InvalidStructuredOutput, match="reason"):
        llm.complete_json([user("judge again")], Verdict)


def test_complete_json_with_dict_schema_and_non_json_reply():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    llm = ScriptedLLM(['```json\n{"n": 3}\n```', "not json at all"])
    assert llm.complete_json([user("count")], schema).data == {"n": 3}
    with pytest.raises(InvalidStructuredOutput, match="not JSON"):
        llm.complete_json([user("count")], schema)


def test_stream_yields_pieces_then_the_reply():
    items = list(ScriptedLLM(["def f():\n    return 1"]).stream([user("code")]))
    assert isinstance(items[-1], Reply)
    assert "".join(items[:-1]) == items[-1].text == "def f():\n    return 1"
    assert len(items) > 2


def test_stop_sequences_cut_the_reply():
    reply = ScriptedLLM(["answer\nObservation: x"]).complete([user("q")], stop=["Observation:"])
    assert reply.text == "answer\n"


def test_scripted_errors_raise_the_named_llm_error():
    llm = ScriptedLLM([{"raise": "BackendTimeout", "message": "slow server"}, "recovered"])
    with pytest.raises(BackendTimeout, match="slow server"):
        llm.complete([user("q")])
    assert llm.complete([user("q")]).text == "recovered"


def test_from_file_reads_yaml_and_json(tmp_path):
    yaml_file = tmp_path / "script.yaml"
    yaml_file.write_text("- hello\n- match: plan\n  json: {steps: [a, b]}\n")
    llm = ScriptedLLM.from_file(yaml_file)
    assert llm.complete_json([user("make a plan")], {"type": "object"}).data == {
        "steps": ["a", "b"]
    }
    assert llm.complete([user("hi")]).text == "hello"
    json_file = tmp_path / "script.json"
    json_file.write_text(json.dumps({"replies": ["from json"]}))
    assert ScriptedLLM.from_file(json_file).complete([user("q")]).text == "from json"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("key: value\n", "expected a list"),
        ("- {reply: a, json: {}}\n", "exactly one of"),
        ("- {raise: NoSuchError}\n", "unknown error"),
        ("- [1, 2]\n", "expected a string or a mapping"),
        ("- : [\n", "not valid JSON/YAML"),
    ],
)
def test_bad_script_files_give_clear_errors(tmp_path, content, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(ScriptFileError, match=needle):
        ScriptedLLM.from_file(path)


def test_missing_script_file(tmp_path):
    with pytest.raises(ScriptFileError, match="cannot read script"):
        ScriptedLLM.from_file(tmp_path / "absent.yaml")


def test_a_reply_can_be_scripted_as_cut_off_at_the_token_limit():
    llm = ScriptedLLM([{"reply": "def f(:\n    x = [", "finish": "length"}, "done"])
    cut = llm.complete([user("write f")])
    assert (cut.text, cut.finish_reason) == ("def f(:\n    x = [", "length")
    assert llm.complete([user("again")]).finish_reason == "stop"
    with pytest.raises(ScriptFileError, match="'finish' is 'stop' or 'length'"):
        ScriptedLLM([{"reply": "x", "finish": "max_tokens"}])
