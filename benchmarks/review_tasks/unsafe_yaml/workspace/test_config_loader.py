from config_loader import load_config


def test_plain_config():
    assert load_config("name: demo\nworkers: 4\n") == {"name": "demo", "workers": 4}


def test_empty_document():
    assert load_config("") == {}
