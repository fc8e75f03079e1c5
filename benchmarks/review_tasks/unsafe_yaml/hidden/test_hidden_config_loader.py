import pytest
import yaml

from config_loader import load_config


def test_plain_configs():
    assert load_config("name: demo\nworkers: 4\ntags: [a, b]\n") == {
        "name": "demo", "workers": 4, "tags": ["a", "b"]}
    assert load_config("") == {}
    assert load_config("# only a comment\n") == {}


@pytest.mark.parametrize("document", [
    "cwd: !!python/object/apply:os.getcwd []\n",
    "x: !!python/name:os.system\n",
    "!!python/object/new:builtins.list [[1, 2]]\n",
])
def test_python_tags_are_refused(document):
    with pytest.raises(yaml.YAMLError):
        load_config(document)
