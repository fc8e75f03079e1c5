from static_files import read_static


def test_serves_a_file(tmp_path):
    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "site.css").write_text("body {}")
    assert read_static(tmp_path, "css/site.css") == b"body {}"
