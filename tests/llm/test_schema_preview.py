"""A reply that is not JSON is reported with its head and its tail (where a small model's
JSON usually goes wrong), so a benchmark's event log says what the model wrote."""

from __future__ import annotations

import pytest

from codeloop.llm.base import InvalidStructuredOutput
from codeloop.llm.schema import parse_json_text


def test_a_long_reply_that_is_not_json_shows_its_head_and_tail():
    text = '{"answer": "' + "word " * 60 + 'end" trailing junk'
    with pytest.raises(InvalidStructuredOutput) as caught:
        parse_json_text(text, "finish")
    message = str(caught.value)
    assert message.startswith("finish: the reply is not JSON: '{\"answer\": \"word word")
    assert 'end" trailing junk' in message and " ... " in message


def test_a_short_reply_is_shown_whole():
    with pytest.raises(InvalidStructuredOutput, match=r"the reply is not JSON: 'not json at all'"):
        parse_json_text("not json at all")
