"""The "no real models in tests" guard stops every real backend, not only the local one;
and the model seam's one way in: `get_llm(settings)`."""

from __future__ import annotations

import pytest
from llm_stub_server import Canned, allow_stub_url, chat_body, serve_openai_stub, stream_body
from pydantic import BaseModel

from codeloop.config import Settings
from codeloop.llm.backend import BackendLLM
from codeloop.llm.base import RealModelForbidden, Reply, user
from codeloop.llm.local import LocalLLM
from codeloop.llm.openai_compat import OpenAICompatLLM
from codeloop.llm.registry import get_llm
from codeloop.llm.scripted import ScriptedLLM


class Answer(BaseModel):
    value: int


@pytest.fixture
def unlisted_stub():
    """A stub server that is NOT listed as a stub: to the guard it is a real model server
    (it could as well be a real Ollama on localhost)."""
    yield from serve_openai_stub()


def _remote_backends(stub_url: str) -> dict[str, object]:
    base = stub_url.removesuffix("/v1")
    return {
        "openai": get_llm("openai:gpt-x", Settings(openai_base_url=stub_url, max_retries=0)),
        "ollama": get_llm("ollama:qwen2.5-coder:7b", Settings(ollama_base_url=base,
                                                              max_retries=0)),
        "direct": OpenAICompatLLM("m", name="openai:m", base_url=stub_url, max_retries=0),
    }


@pytest.mark.parametrize("backend", ["openai", "ollama", "direct"])
def test_the_guard_stops_remote_backends_before_any_request(unlisted_stub, backend):
    llm = _remote_backends(unlisted_stub.url)[backend]
    unlisted_stub.reply(*[Canned(body=chat_body('{"value": 1}')) for _ in range(3)])
    with pytest.raises(RealModelForbidden, match="real model calls are forbidden") as err:
        llm.complete([user("hi")])
    assert llm.name in str(err.value) and unlisted_stub.url in str(err.value)
    with pytest.raises(RealModelForbidden):
        llm.complete_json([user("hi")], Answer)
    with pytest.raises(RealModelForbidden):
        list(llm.stream([user("hi")]))
    assert unlisted_stub.requests == []  # nothing left the process


def test_without_the_guard_the_same_backends_reach_the_server(unlisted_stub, monkeypatch):
    monkeypatch.delenv("CODELOOP_FORBID_REAL_MODELS")
    backends = _remote_backends(unlisted_stub.url)
    unlisted_stub.reply(*[Canned(body=chat_body("ok")) for _ in backends])
    assert [llm.complete([user("q")]).text for llm in backends.values()] == ["ok"] * 3
    assert len(unlisted_stub.requests) == 3


def test_listing_one_stub_does_not_unlock_another_address(unlisted_stub, monkeypatch):
    allow_stub_url(monkeypatch, "http://127.0.0.1:1/v1")
    with pytest.raises(RealModelForbidden):
        _remote_backends(unlisted_stub.url)["openai"].complete([user("q")])
    allow_stub_url(monkeypatch, unlisted_stub.url + "/")  # a trailing slash is the same place
    unlisted_stub.reply(Canned(body=stream_body(["a", "b"]), content_type="text/event-stream"))
    items = list(_remote_backends(unlisted_stub.url)["openai"].stream([user("q")]))
    assert isinstance(items[-1], Reply) and items[-1].text == "ab"


def test_the_local_backend_is_stopped_even_when_built_directly(tmp_path):
    with pytest.raises(RealModelForbidden, match="local:x"):
        LocalLLM(tmp_path / "absent.gguf", name="local:x", n_ctx=512, n_threads=1)


def test_the_scripted_model_is_not_a_real_model():
    assert ScriptedLLM(["fine"]).complete([user("q")]).text == "fine"


@pytest.mark.parametrize("backend", [LocalLLM, OpenAICompatLLM, ScriptedLLM])
def test_every_backend_writes_one_request_method_only(backend):
    assert issubclass(backend, BackendLLM)
    own = vars(backend)
    assert "_generate" in own
    assert not {"complete", "complete_json", "stream"} & set(own)


def test_get_llm_takes_the_settings_alone(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("- from the settings\n")
    settings = Settings(model=f"scripted:{script}")
    assert get_llm(settings).complete([user("q")]).text == "from the settings"
    other = tmp_path / "o.yaml"
    other.write_text("- another spec\n")
    assert get_llm(f"scripted:{other}", settings).complete([user("q")]).text == "another spec"
    with pytest.raises(TypeError, match="one Settings"):
        get_llm(settings, settings)
