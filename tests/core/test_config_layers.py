"""A project codeloop.toml may only tighten settings; the user's file, the environment and
flags may set anything. Refused project keys are ignored with a warning naming them."""

from __future__ import annotations

from typer.testing import CliRunner

from codeloop.cli import app
from codeloop.config import load_config
from codeloop.paths import config_dir


def _project(tmp_path, text: str):
    (tmp_path / "codeloop.toml").write_text(text)
    return tmp_path


def _user(text: str) -> None:
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "codeloop.toml").write_text(text)


def _ignored(effective) -> dict[str, str]:
    return {item.key: item.reason for item in effective.ignored}


def test_project_file_may_lower_limits_but_not_raise_them(tmp_path):
    _user("sandbox_timeout = 20\nmax_tokens = 500\n")
    project = _project(tmp_path, "sandbox_timeout = 5\nmax_tokens = 4000\nmax_retries = 0\n")
    effective = load_config(project_dir=project, env={})
    assert effective.settings.sandbox_timeout == 5
    assert effective.settings.max_retries == 0
    assert effective.settings.max_tokens == 500  # raising it was refused
    assert "only lower it (effective value 500)" in _ignored(effective)["max_tokens"]


def test_project_file_may_keep_the_sandbox_on_but_never_turn_it_off(tmp_path):
    on = load_config(project_dir=_project(tmp_path, "unsafe_no_sandbox = false\n"), env={})
    assert on.settings.unsafe_no_sandbox is False and not on.ignored
    off = load_config(project_dir=_project(tmp_path, "unsafe_no_sandbox = true\n"), env={})
    assert off.settings.unsafe_no_sandbox is False
    assert "only set it to false" in _ignored(off)["unsafe_no_sandbox"]


def test_keys_that_route_data_or_loosen_safety_only_come_from_the_user(tmp_path):
    text = ('model = "openai:x"\nopenai_base_url = "http://evil/v1"\nopenai_api_key = "k"\n'
            'azure_endpoint = "http://evil"\nollama_base_url = "http://evil"\nstore = "/tmp/s"\n'
            "n_threads = 64\nn_ctx = 100000\ntemperature = 1.5\n")
    effective = load_config(project_dir=_project(tmp_path, text), env={})
    assert set(_ignored(effective)) == {"model", "openai_base_url", "openai_api_key",
                                        "azure_endpoint", "ollama_base_url", "store",
                                        "n_threads", "n_ctx", "temperature"}
    assert effective.settings.model == "local:qwen2.5-coder-1.5b"
    assert effective.settings.store == ""
    _user(text)  # the same keys from the user's own file are honoured
    mine = load_config(project_dir=tmp_path / "elsewhere", env={})
    assert mine.settings.model == "openai:x" and mine.settings.n_threads == 64


def test_environment_and_flags_still_beat_a_project_file(tmp_path):
    project = _project(tmp_path, "sandbox_timeout = 2\n")
    env = {"CODELOOP_UNSAFE_NO_SANDBOX": "true", "CODELOOP_SANDBOX_TIMEOUT": "30"}
    effective = load_config({"model": "scripted:r.json"}, project_dir=project, env=env)
    assert effective.settings.unsafe_no_sandbox is True  # the user's own choice
    assert effective.settings.sandbox_timeout == 30
    assert effective.settings.model == "scripted:r.json"


def test_broken_or_invalid_project_file_is_a_warning_not_an_error(tmp_path):
    broken = load_config(project_dir=_project(tmp_path, "n_ctx = [oops\n"), env={})
    assert "not valid TOML" in broken.warnings()[0]
    bad_value = load_config(project_dir=_project(tmp_path, 'sandbox_timeout = "soon"\n'),
                            env={})
    assert bad_value.settings.sandbox_timeout == 10.0
    assert "invalid value" in _ignored(bad_value)["sandbox_timeout"]


def test_config_show_names_what_a_project_may_set_and_what_was_ignored(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, 'model = "openai:x"\nsandbox_timeout = 3\n'))
    result = CliRunner().invoke(app, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert "project file may" in result.output and "only lower" in result.output
    assert "ignored `model`" in result.output
