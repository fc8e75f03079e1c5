from cli import main, top_words


def test_top_words_order():
    assert top_words("b a b, c A") == [("a", 2), ("b", 2), ("c", 1)]


def test_main_prints_all(tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text("the cat and the dog")
    assert main([str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == ["the: 2", "and: 1", "cat: 1", "dog: 1"]
