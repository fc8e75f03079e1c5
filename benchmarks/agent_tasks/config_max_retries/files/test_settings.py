import json

from settings import load_settings


def test_defaults_when_no_file(tmp_path):
    settings = load_settings(tmp_path / "missing.json")
    assert settings.base_url == "http://localhost:8000" and settings.timeout == 10


def test_file_overrides(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"timeout": "7", "verbose": True}))
    settings = load_settings(path)
    assert settings.timeout == 7 and settings.verbose
