"""`codeloop chat` and `codeloop models` through typer, on the scripted model."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from codeloop.commands import chat_cmd, models_cmd


@pytest.fixture
def cli():
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """test root"""

    chat_cmd.register(app)
    models_cmd.register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_chat_streams_the_reply_and_reports_usage(cli, tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("- match: capital\n  reply: Paris is the capital.\n")
    result = cli("chat", "--model", f"scripted:{script}", "What is the capital of France?")
    assert result.exit_code == 0, result.output
    assert "Paris is the capital." in result.stdout
    assert "prompt +" in result.stderr and "completion tokens" in result.stderr


def test_chat_errors_are_one_clean_line(cli, tmp_path):
    script = tmp_path / "empty.yaml"
    script.write_text("[]\n")
    result = cli("chat", "--model", f"scripted:{script}", "hello")
    assert result.exit_code == 2
    assert "error:" in result.stderr and "script exhausted" in result.stderr
    assert "Traceback" not in result.output


def test_chat_rejects_an_unknown_spec_cleanly(cli):
    result = cli("chat", "--model", "local:no-such-model", "hello")
    assert result.exit_code == 2
    assert "unknown local model" in result.stderr


def test_models_json_lists_every_backend(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("CODELOOP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CODELOOP_OLLAMA_BASE_URL", "http://127.0.0.1:9")  # nothing there
    result = cli("models", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    specs = {row["spec"] for row in rows}
    assert {"local:qwen2.5-coder-1.5b", "local:qwen2.5-coder-0.5b", "scripted:PATH"} <= specs
    assert {row["backend"] for row in rows} == {"local", "openai", "ollama", "scripted"}
    assert all(not row["verified"] for row in rows if row["backend"] == "local")


def test_models_install_of_a_remote_spec_needs_nothing(cli):
    result = cli("models", "install", "ollama:qwen2.5-coder:7b")
    assert result.exit_code == 0
    assert "nothing to install" in result.stderr


def test_models_install_checks_a_user_file(cli, tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"nope")
    result = cli("models", "install", f"local:{bad}")
    assert result.exit_code == 2
    assert "not a GGUF model file" in result.stderr
