import json

from models import Task
from report import format_report, format_task
from storage import from_dict, load, save, to_dict


def test_default_and_given_priority():
    assert Task(title="a").priority == 0
    assert Task(title="a", priority=3).priority == 3


def test_saved_and_loaded(tmp_path):
    path = tmp_path / "tasks.json"
    save([Task(title="a", priority=2), Task(title="b", done=True)], path)
    assert [item["priority"] for item in json.loads(path.read_text())] == [2, 0]
    assert [(t.title, t.priority, t.done) for t in load(path)] == [("a", 2, False),
                                                                    ("b", 0, True)]


def test_old_files_load_with_priority_zero():
    task = from_dict({"title": "old", "done": True})
    assert task.priority == 0 and task.done
    assert to_dict(Task(title="n", priority=1))["priority"] == 1


def test_format_task_shows_priority():
    assert format_task(Task(title="Write docs", priority=2)) == "[ ] (P2) Write docs"
    assert format_task(Task(title="Ship", done=True)) == "[x] (P0) Ship"


def test_report_sorted_by_priority_stable():
    tasks = [Task(title="low"), Task(title="high", priority=5), Task(title="mid", priority=1),
             Task(title="low2", done=True), Task(title="high2", priority=5)]
    assert format_report(tasks).splitlines() == [
        "[ ] (P5) high", "[ ] (P5) high2", "[ ] (P1) mid", "[ ] (P0) low", "[x] (P0) low2",
        "5 tasks, 1 done"]
    assert tasks[0].title == "low"  # the caller's list is not reordered
