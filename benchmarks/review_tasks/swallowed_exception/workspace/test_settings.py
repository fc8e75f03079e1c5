from settings import DEFAULTS, load_settings


def test_values_override_defaults(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}')
    assert load_settings(path) == {"theme": "dark", "autosave": True}


def test_missing_file_gives_defaults(tmp_path):
    assert load_settings(tmp_path / "absent.json") == DEFAULTS
