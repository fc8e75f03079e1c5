from cli import main


def test_text_output(tmp_path, capsys):
    path = tmp_path / "e.csv"
    path.write_text("category,amount\nfood,12.5\nrent,700\nfood,7.25\n")
    assert main([str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "food             19.75", "rent            700.00"]
