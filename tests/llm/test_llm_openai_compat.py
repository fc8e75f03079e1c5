"""The OpenAI-compatible backend against a real HTTP stub server on 127.0.0.1."""

from __future__ import annotations

import logging

import pytest
from llm_stub_server import Canned, allow_stub_url, chat_body, free_port, stream_body
from pydantic import BaseModel

from codeloop.config import Settings
from codeloop.jobs.runaway import runaway
from codeloop.jobs.stage import ask_model
from codeloop.llm.base import (
    BackendHTTPError,
    BackendTimeout,
    InvalidStructuredOutput,
    LLMError,
    MalformedResponse,
    ModelUnreachable,
    Reply,
    user,
)
from codeloop.llm.openai_compat import OpenAICompatLLM
from codeloop.llm.registry import get_llm


class Answer(BaseModel):
    value: int


def make_llm(url: str, *, retries: int = 0, timeout: float = 5.0, delays: list | None = None):
    return OpenAICompatLLM(
        "stub-model", name="openai:stub-model", base_url=url, api_key="k", timeout=timeout,
        max_retries=retries, backoff_seconds=0.25,
        sleep=(delays.append if delays is not None else lambda s: None),
    )


def test_a_completion_round_trip(openai_stub):
    openai_stub.reply(Canned(body=chat_body("hello", 7, 2)))
    reply = make_llm(openai_stub.url).complete([user("hi")], max_tokens=20, stop=["\n\n"])
    assert (reply.text, reply.usage.prompt_tokens, reply.usage.completion_tokens) == (
        "hello", 7, 2)
    sent = openai_stub.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["json"]["model"] == "stub-model"
    assert sent["json"]["max_tokens"] == 20 and sent["json"]["stop"] == ["\n\n"]
    assert sent["auth"] == "Bearer k"
    assert "seed" not in sent["json"]  # none asked for: the server draws as it likes


def test_a_seed_is_sent_when_asked_for(openai_stub):
    openai_stub.reply(Canned(body=chat_body("wave", 7, 1)))
    make_llm(openai_stub.url).complete([user("hi")], temperature=0.5, seed=42)
    sent = openai_stub.requests[0]["json"]
    assert sent["seed"] == 42 and sent["temperature"] == 0.5


def test_refused_connection_is_model_unreachable_at_once(monkeypatch):
    port = free_port()  # nothing listens there any more
    allow_stub_url(monkeypatch, f"http://127.0.0.1:{port}/v1")
    delays: list[float] = []
    llm = make_llm(f"http://127.0.0.1:{port}/v1", retries=2, delays=delays)
    with pytest.raises(ModelUnreachable) as err:
        llm.complete([user("hi")])
    assert not isinstance(err.value, LLMError)  # no job's "one call failed" handler takes it
    assert f"cannot reach the model openai:stub-model at http://127.0.0.1:{port}/v1" \
        in str(err.value)
    assert "Connection refused" in str(err.value)
    assert delays == []  # a refused connection is an answer: no retry, no backoff


def test_server_errors_are_retried_then_reported_with_status(openai_stub):
    error = Canned(500, {"error": {"message": "boom"}})
    openai_stub.reply(error, error, error)
    with pytest.raises(BackendHTTPError) as err:
        make_llm(openai_stub.url, retries=2).complete([user("hi")])
    assert err.value.status == 500
    assert "boom" in str(err.value)
    assert len(openai_stub.requests) == 3


def test_a_transient_error_then_success(openai_stub):
    openai_stub.reply(Canned(429, {"error": {"message": "slow down"}}), Canned(body=chat_body("ok")))
    assert make_llm(openai_stub.url, retries=1).complete([user("hi")]).text == "ok"
    assert len(openai_stub.requests) == 2


def test_client_errors_are_not_retried(openai_stub):
    openai_stub.reply(Canned(401, {"error": {"message": "bad key"}}))
    with pytest.raises(BackendHTTPError) as err:
        make_llm(openai_stub.url, retries=3).complete([user("hi")])
    assert err.value.status == 401
    assert len(openai_stub.requests) == 1


def test_a_slow_server_is_backend_timeout(openai_stub):
    openai_stub.reply(Canned(body=chat_body("late"), delay=1.5))
    with pytest.raises(BackendTimeout, match="timeout"):
        make_llm(openai_stub.url, timeout=0.3).complete([user("hi")])


def test_malformed_json_body_is_a_clear_error(openai_stub):
    openai_stub.reply(Canned(body="{this is not json"))
    with pytest.raises(MalformedResponse, match="not valid JSON"):
        make_llm(openai_stub.url).complete([user("hi")])


def test_json_without_choices_is_a_clear_error(openai_stub):
    openai_stub.reply(Canned(body={"object": "chat.completion", "id": "x"}))
    with pytest.raises(MalformedResponse, match="without a chat completion"):
        make_llm(openai_stub.url).complete([user("hi")])


def test_structured_output_uses_json_schema(openai_stub):
    openai_stub.reply(Canned(body=chat_body('{"value": 4}')))
    result = make_llm(openai_stub.url).complete_json([user("2+2")], Answer)
    assert result.data == Answer(value=4)
    fmt = openai_stub.requests[0]["json"]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Answer"
    assert fmt["json_schema"]["schema"]["required"] == ["value"]


def test_rejected_json_schema_falls_back_to_validate_and_retry(openai_stub):
    openai_stub.reply(
        Canned(400, {"error": {"message": "response_format json_schema unsupported"}}),
        Canned(body=chat_body("The answer is four.")),
        Canned(body=chat_body('{"value": 4}')),
        Canned(body=chat_body('{"value": 5}')),
    )
    llm = make_llm(openai_stub.url)
    result = llm.complete_json([user("2+2")], Answer)
    assert result.data == Answer(value=4) and result.attempts == 2
    first_plain, retry = openai_stub.requests[1]["json"], openai_stub.requests[2]["json"]
    assert "response_format" not in first_plain
    assert '"value"' in first_plain["messages"][-1]["content"]  # the schema is in the prompt
    assert "not JSON" in retry["messages"][-1]["content"]  # the problem is fed back
    # The server's answer is remembered: the next call goes straight to the fallback.
    assert llm.complete_json([user("2+3")], Answer).data == Answer(value=5)
    assert "response_format" not in openai_stub.requests[3]["json"]


def test_a_500_about_response_format_falls_back_without_retrying(openai_stub):
    # llama.cpp's Python server answers an unknown response_format type with a 500.
    openai_stub.reply(
        Canned(500, {"error": {"message": "('body', 'response_format', 'type'): literal_error"}}),
        Canned(body=chat_body('{"value": 7}')),
    )
    result = make_llm(openai_stub.url, retries=2).complete_json([user("q")], Answer)
    assert result.data == Answer(value=7)
    assert len(openai_stub.requests) == 2


def test_fallback_gives_up_after_bounded_attempts(openai_stub):
    openai_stub.reply(Canned(422, {"error": {"message": "no"}}),
                      *[Canned(body=chat_body("nope")) for _ in range(3)])
    with pytest.raises(InvalidStructuredOutput, match="after 3 attempt"):
        make_llm(openai_stub.url).complete_json([user("q")], Answer)
    assert len(openai_stub.requests) == 4


def test_stream_yields_pieces_then_reply_with_server_usage(openai_stub):
    openai_stub.reply(Canned(body=stream_body(["def ", "f():", " pass"]),
                             content_type="text/event-stream"))
    items = list(make_llm(openai_stub.url).stream([user("code")]))
    assert items[:-1] == ["def ", "f():", " pass"]
    final = items[-1]
    assert isinstance(final, Reply) and final.text == "def f(): pass"
    assert (final.usage.prompt_tokens, final.usage.completion_tokens) == (11, 4)
    assert openai_stub.requests[0]["json"]["stream"] is True


def test_a_stream_the_caller_stops_is_closed_and_read_as_cut(openai_stub):
    # ask_model(until=...) stops reading a looping reply (jobs/runaway.py); the request is
    # closed, and the next call on the same client works
    loop = [f"    assert f({n}) == '{n}'\n" for n in range(40)]
    openai_stub.reply(Canned(body=stream_body(["def test_f():\n", *loop]),
                             content_type="text/event-stream"),
                      Canned(body=chat_body("ok")))
    llm = make_llm(openai_stub.url)
    stopped = ask_model(llm, [user("tests")], stage="t", bus=None, max_tokens=512,
                        temperature=0.0, until=runaway)
    assert stopped.finish_reason == "length" and stopped.text.count("assert") == 8
    assert llm.complete([user("again")]).text == "ok"


def test_ollama_spec_talks_to_v1_with_num_ctx_and_warns_on_long_prompts(openai_stub, caplog):
    base = openai_stub.url.removesuffix("/v1")
    settings = Settings(ollama_base_url=base, n_ctx=64, max_retries=0)
    llm = get_llm("deepseek-coder-v2:16b", settings)
    openai_stub.reply(Canned(body=chat_body("ok")))
    with caplog.at_level(logging.WARNING, logger="codeloop.llm.openai_compat"):
        assert llm.complete([user("word " * 100)], max_tokens=16).text == "ok"
    sent = openai_stub.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["json"]["model"] == "deepseek-coder-v2:16b"
    assert sent["json"]["options"] == {"num_ctx": 64}
    assert sent["auth"] == "Bearer ollama"
    assert "may not fit num_ctx 64" in caplog.text


def test_openai_spec_uses_configured_base_url_and_key(openai_stub):
    settings = Settings(openai_base_url=openai_stub.url, openai_api_key="sk-test")
    openai_stub.reply(Canned(body=chat_body("hi")))
    assert get_llm("openai:gpt-x", settings).complete([user("q")]).text == "hi"
    assert openai_stub.requests[0]["auth"] == "Bearer sk-test"
    assert openai_stub.requests[0]["json"]["model"] == "gpt-x"
