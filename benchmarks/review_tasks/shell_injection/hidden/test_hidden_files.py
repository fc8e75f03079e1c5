from files import line_count


def test_plain_name(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("a\nb\nc\n")
    assert line_count(str(target)) == 3


def test_name_with_spaces_and_quotes(tmp_path):
    target = tmp_path / "my 'draft' notes.txt"
    target.write_text("one\ntwo\n")
    assert line_count(str(target)) == 2


def test_name_cannot_inject_a_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "a.txt; touch injected"
    target.write_text("x\n")
    assert line_count(str(target)) == 1
    assert not (tmp_path / "injected").exists()
