import subprocess
import sys

from typer.testing import CliRunner

from codeloop import __version__
from codeloop.cli import app


def test_version_and_help():
    runner = CliRunner()
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "config" in result.output


def test_help_path_does_not_import_heavy_modules():
    code = ("import sys; from codeloop.cli import app; "
            "heavy = [m for m in ('langgraph', 'llama_cpp', 'openai', 'radon', 'fastapi') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_config_show_reports_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "codeloop.toml").write_text('[codeloop]\nsandbox_timeout = 4\n')
    monkeypatch.setenv("CODELOOP_TEMPERATURE", "0.3")
    result = CliRunner().invoke(app, ["config", "show", "--json", "--model", "scripted:x.json"])
    assert result.exit_code == 0, result.output
    import json
    data = json.loads(result.output)
    assert (data["model"]["value"], data["model"]["source"]) == ("scripted:x.json", "cli")
    assert data["sandbox_timeout"]["value"] == 4
    assert data["sandbox_timeout"]["source"].endswith("codeloop.toml")
    assert (data["temperature"]["value"], data["temperature"]["source"]) == (
        0.3, "env CODELOOP_TEMPERATURE")
    assert data["max_tokens"]["source"] == "default"


def test_bad_config_file_is_a_clean_error(tmp_path, monkeypatch):
    # The user's own file; a broken project file is ignored with a warning instead.
    from codeloop.paths import config_dir

    monkeypatch.chdir(tmp_path)
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "codeloop.toml").write_text("n_ctx = [oops\n")
    result = CliRunner().invoke(app, ["config", "show"])
    assert result.exit_code == 2
    assert "not valid TOML" in result.output
    assert "Traceback" not in result.output
