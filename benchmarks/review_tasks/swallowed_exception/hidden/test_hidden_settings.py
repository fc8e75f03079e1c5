import pytest

from settings import DEFAULTS, load_settings


def test_values_override_defaults(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark", "font": 12}')
    assert load_settings(path) == {"theme": "dark", "autosave": True, "font": 12}


def test_missing_file_gives_defaults_and_does_not_share_them(tmp_path):
    settings = load_settings(tmp_path / "absent.json")
    assert settings == DEFAULTS
    settings["theme"] = "changed"
    assert DEFAULTS["theme"] == "light"


def test_corrupt_file_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "broken-settings.json"
    path.write_text('{"theme": ')
    with pytest.raises(ValueError, match="broken-settings.json"):
        load_settings(path)
