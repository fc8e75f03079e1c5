from logs import count_lines, read_errors


def test_read_errors(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("INFO start\nERROR disk full\nINFO retry\nERROR gave up\n")
    assert read_errors(log) == ["ERROR disk full", "ERROR gave up"]
    assert count_lines(log) == 4
