"""Model specs -> backends, and the model list `codeloop models` shows."""

from __future__ import annotations

import pytest

from codeloop.config import Settings
from codeloop.llm import weights
from codeloop.llm.base import LLMError, ModelNotAvailable, UnknownModelSpec, user
from codeloop.llm.openai_compat import OpenAICompatLLM
from codeloop.llm.registry import ModelSpec, get_llm, list_models, parse_spec
from codeloop.llm.scripted import ScriptedLLM


@pytest.mark.parametrize(
    ("spec", "backend", "name"),
    [
        ("local:qwen2.5-coder-1.5b", "local", "qwen2.5-coder-1.5b"),
        ("local:qwen2.5-coder-0.5b", "local", "qwen2.5-coder-0.5b"),
        ("local:/models/my model.gguf", "local", "/models/my model.gguf"),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("ollama:deepseek-coder-v2:16b", "ollama", "deepseek-coder-v2:16b"),
        ("deepseek-coder-v2:16b", "ollama", "deepseek-coder-v2:16b"),
        ("qwen2.5-coder:7b", "ollama", "qwen2.5-coder:7b"),
        ("hf.co/org/model:Q4_K_M", "ollama", "hf.co/org/model:Q4_K_M"),
        ("qwen2.5-coder-0.5b", "local", "qwen2.5-coder-0.5b"),
        ("~/models/x.gguf", "local", "~/models/x.gguf"),
        ("scripted:/tmp/s.yaml", "scripted", "/tmp/s.yaml"),
        ("  openai:gpt-4o  ", "openai", "gpt-4o"),
    ],
)
def test_parse_spec(spec, backend, name):
    parsed = parse_spec(spec)
    assert parsed == ModelSpec(backend, name)
    assert str(parsed) == f"{backend}:{name}"


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("", "empty model spec"),
        ("openai:", "names no model"),
        ("local:qwen-huge", "unknown local model 'qwen-huge'"),
        ("what is this?", "cannot understand"),
        ("ollama:bad name", "not a model name"),
    ],
)
def test_bad_specs_list_the_valid_forms(spec, needle):
    with pytest.raises(UnknownModelSpec) as err:
        parse_spec(spec)
    assert needle in str(err.value)
    if "unknown local" not in needle:
        assert "ollama:MODEL" in str(err.value)


def test_scripted_spec_builds_a_scripted_model(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("- scripted hello\n")
    llm = get_llm(f"scripted:{script}", Settings())
    assert isinstance(llm, ScriptedLLM)
    assert llm.name == f"scripted:{script}"
    assert llm.complete([user("hi")]).text == "scripted hello"


def test_default_spec_comes_from_settings(tmp_path):
    script = tmp_path / "s.json"
    script.write_text('["from settings"]')
    llm = get_llm(settings=Settings(model=f"scripted:{script}"))
    assert llm.complete([user("q")]).text == "from settings"


def test_remote_specs_build_the_openai_compatible_backend():
    settings = Settings(ollama_base_url="http://box:11434/", max_retries=5, n_ctx=4096)
    ollama = get_llm("ollama:qwen2.5-coder:7b", settings)
    assert isinstance(ollama, OpenAICompatLLM)
    assert ollama.address == "http://box:11434/v1"
    assert ollama.extra_body == {"options": {"num_ctx": 4096}}
    assert ollama.max_retries == 5
    openai = get_llm("openai:gpt-4o", Settings(openai_base_url="http://vllm:8000/v1"))
    assert (openai.address, openai.model, openai.context_limit) == (
        "http://vllm:8000/v1", "gpt-4o", None)


def test_azure_is_used_when_an_endpoint_is_configured():
    import openai

    settings = Settings(azure_endpoint="https://res.openai.azure.com",
                        azure_api_version="2024-06-01", openai_api_key="k")
    llm = get_llm("openai:my-deployment", settings)
    assert isinstance(llm._client, openai.AzureOpenAI)
    assert llm.address == "https://res.openai.azure.com"


def test_local_models_are_forbidden_in_ordinary_tests(tmp_path, monkeypatch):
    monkeypatch.setenv("CODELOOP_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(LLMError, match="real model calls are forbidden"):
        get_llm("local:qwen2.5-coder-0.5b", Settings())
    assert not (tmp_path / "cache").exists()  # refused before assembling anything


def test_a_local_path_that_is_not_gguf_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("CODELOOP_FORBID_REAL_MODELS")
    fake = tmp_path / "fake.gguf"
    fake.write_text("not a model")
    with pytest.raises(ModelNotAvailable, match="not a GGUF model file"):
        get_llm(f"local:{fake}", Settings())


def test_list_models_reports_status(tmp_path, monkeypatch):
    monkeypatch.setenv("CODELOOP_CACHE_DIR", str(tmp_path / "cache"))
    small = weights.EMBEDDED_MODELS["qwen2.5-coder-0.5b"]
    cached = weights.cached_path(small)
    cached.parent.mkdir(parents=True)
    with cached.open("wb") as fh:  # right size, never verified (sparse: costs no disk)
        fh.truncate(small.size)
    infos = {i.spec: i for i in list_models(Settings(), probe_ollama=False)}
    assert infos["local:qwen2.5-coder-0.5b"].installed
    assert not infos["local:qwen2.5-coder-0.5b"].verified
    assert "not yet verified" in infos["local:qwen2.5-coder-0.5b"].detail
    big = infos["local:qwen2.5-coder-1.5b"]
    assert not big.installed and not big.verified
    assert "qwen2.5-coder-1.5b" in big.detail  # how to install it
    assert not infos["openai:MODEL"].installed
    assert infos["scripted:PATH"].verified


def test_list_models_probes_ollama_briefly():
    from llm_stub_server import free_port

    settings = Settings(ollama_base_url=f"http://127.0.0.1:{free_port()}")
    ollama = [i for i in list_models(settings) if i.backend == "ollama"]
    assert len(ollama) == 1 and not ollama[0].installed
    assert "no Ollama server" in ollama[0].detail
