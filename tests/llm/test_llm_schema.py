"""Structured output: schema conversion, validation and the bounded validate-and-retry loop."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ConfigDict

from codeloop.llm.base import InvalidStructuredOutput, user
from codeloop.llm.schema import complete_with_validation, parse_json_text, to_structured
from codeloop.llm.scripted import ScriptedLLM, approx_tokens


class Plan(BaseModel):
    steps: list[str]
    risky: bool = False


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    size: int


def test_pydantic_model_becomes_schema_and_validator():
    structured = to_structured(Plan)
    assert structured.name == "Plan"
    assert structured.schema["properties"]["steps"]["type"] == "array"
    assert structured.parse_text('{"steps": ["a"]}') == Plan(steps=["a"])
    with pytest.raises(InvalidStructuredOutput, match="steps"):
        structured.validate({"risky": True})


def test_dict_schema_validation_names_the_failing_path():
    schema = {
        "title": "bad name!",
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
        "required": ["items"],
    }
    structured = to_structured(schema)
    assert structured.name == "bad_name_"
    assert structured.validate({"items": [1, 2]}) == {"items": [1, 2]}
    with pytest.raises(InvalidStructuredOutput, match="items/1"):
        structured.validate({"items": [1, "two"]})


def test_an_invalid_schema_is_rejected_up_front():
    with pytest.raises(InvalidStructuredOutput, match="not a valid JSON schema"):
        to_structured({"type": "no-such-type"})


def test_strict_compatibility():
    assert to_structured(Closed).strict_compatible
    assert not to_structured(Plan).strict_compatible  # 'risky' is optional


def test_json_is_found_in_fences_and_chatter():
    assert parse_json_text('Sure! {"a": 1} hope that helps') == {"a": 1}
    assert parse_json_text("```json\n[1, 2]\n```") == [1, 2]
    with pytest.raises(InvalidStructuredOutput):
        parse_json_text("no json here")


def test_validate_and_retry_feeds_the_error_back():
    llm = ScriptedLLM(['{"steps": "one step"}', '{"steps": ["one step"]}'])
    result = complete_with_validation(
        lambda conv: llm.complete(conv), [user("plan it")], to_structured(Plan), attempts=3
    )
    assert result.data == Plan(steps=["one step"])
    assert result.attempts == 2
    retry_prompt = llm.calls[1][-1].content
    assert "invalid" in retry_prompt and "steps" in retry_prompt
    assert llm.calls[1][-2].content == '{"steps": "one step"}'  # its own bad reply, shown
    both = approx_tokens('{"steps": "one step"}') + approx_tokens('{"steps": ["one step"]}')
    assert result.reply.usage.completion_tokens == both  # usage of every attempt counts


def test_validate_and_retry_is_bounded():
    llm = ScriptedLLM(["nope", "still nope", "never called"])
    with pytest.raises(InvalidStructuredOutput, match="after 2 attempt"):
        complete_with_validation(lambda c: llm.complete(c), [user("x")], to_structured(Plan),
                                 attempts=2)
    assert len(llm.calls) == 2


def test_python_escapes_and_raw_newlines_in_a_string_are_read_as_meant():
    # From a real finish reply of the 1.5B model (config_max_retries, agent benchmark).
    text = ('{"answer":"I changed the timeout to 10 seconds in config.json and added '
            "\\'max_retries\\': 5 to it.\nThen I ran the tests.\"}")
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert parse_json_text(text) == {
        "answer": "I changed the timeout to 10 seconds in config.json and added "
                  "'max_retries': 5 to it.\nThen I ran the tests."}
    # Valid escapes are kept as they are, an escaped backslash included.
    assert parse_json_text('{"a": "x\\\\\'y \\"q\\" \\u00e9\\n"}') == {"a": "x\\'y \"q\" é\n"}


def test_text_that_is_no_object_at_all_is_still_refused():
    with pytest.raises(InvalidStructuredOutput, match="not JSON"):
        parse_json_text("I would change the timeout {and then")
