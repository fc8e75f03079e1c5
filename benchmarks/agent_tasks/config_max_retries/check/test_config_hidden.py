import json
from pathlib import Path

from settings import load_settings

HERE = Path(__file__).resolve().parent


def test_config_file_values():
    data = json.loads((HERE / "config.json").read_text())
    assert data["timeout"] == 30 and data["max_retries"] == 5
    assert data["base_url"] == "https://api.example.com" and data["verbose"] is False


def test_shipped_config_is_read():
    settings = load_settings()
    assert (settings.timeout, settings.max_retries) == (30, 5)
    assert settings.base_url == "https://api.example.com"


def test_max_retries_default(tmp_path):
    assert load_settings(tmp_path / "missing.json").max_retries == 3
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"timeout": 1}))
    assert load_settings(path).max_retries == 3


def test_max_retries_from_file_is_an_int(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"max_retries": "7"}))
    settings = load_settings(path)
    assert settings.max_retries == 7 and isinstance(settings.max_retries, int)
    path.write_text(json.dumps({"max_retries": 0}))
    assert load_settings(path).max_retries == 0
