from files import line_count


def test_line_count(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("a\nb\nc\n")
    assert line_count(target) == 3
