import json

from config_loader import load_config


def test_load(tmp_path):
    p = tmp_path / 'c.json'
    p.write_text(json.dumps({'a': 1}))
    assert load_config(str(p)) == {'a': 1}
    assert load_config(str(tmp_path / 'missing.json')) == {}
