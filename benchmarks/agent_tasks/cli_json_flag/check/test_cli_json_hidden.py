import json

import pytest
from cli import main

CSV = ("category,amount\nfood,12.5\nrent,700\nfood,7.25\nbooks,3.333\nbooks,3.333\n"
       "fun,0.1\nfun,0.2\n")


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "e.csv"
    p.write_text(CSV)
    return str(p)


def test_json_output(path, capsys):
    assert main([path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"books": 6.67, "food": 19.75, "fun": 0.3, "rent": 700.0}
    assert all(isinstance(v, (int, float)) for v in data.values())


def test_json_respects_min(path, capsys):
    assert main(["--json", path, "--min", "10"]) == 0
    assert json.loads(capsys.readouterr().out) == {"food": 19.75, "rent": 700.0}


def test_json_nothing_shown(path, capsys):
    assert main([path, "--json", "--min", "10000"]) == 0
    assert json.loads(capsys.readouterr().out) == {}


def test_text_output_unchanged(path, capsys):
    assert main([path, "--min", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "books             6.67", "food             19.75", "rent            700.00"]
