from models import Task
from report import format_report
from storage import load, save


def test_round_trip(tmp_path):
    path = tmp_path / "tasks.json"
    save([Task(title="Buy milk", done=True, tags=["home"])], path)
    [task] = load(path)
    assert task.title == "Buy milk" and task.done and task.tags == ["home"]


def test_missing_file_is_empty(tmp_path):
    assert load(tmp_path / "nope.json") == []


def test_report_counts():
    report = format_report([Task(title="a", done=True), Task(title="b")])
    assert report.splitlines()[-1] == "2 tasks, 1 done"
