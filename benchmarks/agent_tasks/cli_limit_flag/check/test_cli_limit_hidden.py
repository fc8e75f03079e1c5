import pytest
from cli import main

TEXT = "the cat and the dog. The end, and the cat!"


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text(TEXT)
    return str(p)


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_limit_two(path, capsys):
    assert main([path, "--limit", "2"]) == 0
    assert lines(capsys) == ["the: 4", "and: 2"]


def test_limit_before_path(path, capsys):
    assert main(["--limit", "1", path]) == 0
    assert lines(capsys) == ["the: 4"]


def test_limit_equals_form_and_larger_than_words(path, capsys):
    assert main([path, "--limit=100"]) == 0
    assert len(lines(capsys)) == 5


def test_default_prints_all(path, capsys):
    assert main([path]) == 0
    assert lines(capsys) == ["the: 4", "and: 2", "cat: 2", "dog: 1", "end: 1"]


@pytest.mark.parametrize("bad", ["0", "-3", "abc"])
def test_bad_limit_is_an_argparse_error(path, capsys, bad):
    with pytest.raises(SystemExit) as stop:
        main([path, "--limit", bad])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "limit" in captured.err
