"""Settings precedence: defaults < user toml < project toml (tightening only) < environment <
CLI."""

from __future__ import annotations

import pytest

from codeloop.config import ConfigError, load_config
from codeloop.paths import config_dir


@pytest.fixture
def layers(tmp_path):
    user_dir = config_dir()
    user_dir.mkdir(parents=True, exist_ok=True)
    (user_dir / "codeloop.toml").write_text(
        '[codeloop]\nmodel = "ollama:from-user"\nn_ctx = 1000\nmax_tokens = 10\n'
        'temperature = 0.5\n'
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "codeloop.toml").write_text("sandbox_timeout = 4\nmax_tokens = 5\n")
    return project


def test_each_layer_overrides_the_one_below(layers):
    env = {"CODELOOP_N_CTX": "3000", "CODELOOP_MAX_TOKENS": "30"}
    effective = load_config({"max_tokens": 40, "model": None}, project_dir=layers, env=env)
    s = effective.settings
    assert s.temperature == 0.5  # user file only
    assert s.model == "ollama:from-user"  # a None CLI value is no value
    assert s.sandbox_timeout == 4  # project tightens the default
    assert s.n_ctx == 3000  # env beats user
    assert s.max_tokens == 40  # cli beats env
    assert s.max_retries == 2  # default
    assert effective.sources["temperature"] == str(config_dir() / "codeloop.toml")
    assert effective.sources["sandbox_timeout"] == str(layers / "codeloop.toml")
    assert effective.sources["n_ctx"] == "env CODELOOP_N_CTX"
    assert effective.sources["max_tokens"] == "cli"
    assert "max_retries" not in effective.sources


def test_provider_variables_count_as_environment(tmp_path):
    env = {"OLLAMA_HOST": "10.0.0.5:11434", "OPENAI_BASE_URL": "http://h/v1"}
    s = load_config(project_dir=tmp_path, env=env).settings
    assert s.ollama_base_url == "http://10.0.0.5:11434"
    assert s.openai_base_url == "http://h/v1"


def test_codeloop_variable_beats_provider_variable(tmp_path):
    env = {"OPENAI_API_KEY": "sk-provider", "CODELOOP_OPENAI_API_KEY": "sk-ours"}
    assert load_config(project_dir=tmp_path, env=env).settings.openai_api_key == "sk-ours"


def test_bad_values_name_their_source(layers):
    with pytest.raises(ConfigError, match="n_ctx .from env CODELOOP_N_CTX"):
        load_config(project_dir=layers, env={"CODELOOP_N_CTX": "lots"})


def test_unknown_keys_in_a_file_are_rejected(tmp_path):
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "codeloop.toml").write_text("modle = 'typo'\n")
    with pytest.raises(ConfigError, match="unknown setting.*modle"):
        load_config(project_dir=tmp_path, env={})
