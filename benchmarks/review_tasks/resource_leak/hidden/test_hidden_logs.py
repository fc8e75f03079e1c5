import gc
import warnings

from logs import count_lines, read_errors


def _log(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("INFO start\nERROR disk full\nINFO retry\nERROR gave up\n")
    return log


def test_same_result(tmp_path):
    assert read_errors(_log(tmp_path)) == ["ERROR disk full", "ERROR gave up"]
    assert count_lines(_log(tmp_path)) == 4


def test_no_file_left_open(tmp_path):
    log = _log(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_errors(log)
        gc.collect()
    leaks = [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert leaks == []
