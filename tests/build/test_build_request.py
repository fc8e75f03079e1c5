"""The build request: malformed requests are rejected before anything runs, naming the task
and the field; dependency levels and the critical path."""

from __future__ import annotations

import json

import pytest

from codeloop.build.request import (
    BuildRequestError,
    critical_path,
    dependency_levels,
    dependents,
    load_request,
    parse_request,
)


def task(task_id: str, *deps: str, **fields):
    return {"id": task_id, "description": f"task {task_id}", "depends_on": list(deps), **fields}


def rejected(data) -> str:
    with pytest.raises(BuildRequestError) as info:
        parse_request(data)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_valid_request_keeps_its_fields():
    request = parse_request({"tech_stack": "python-api", "tasks": [
        task("T1", story_points=3, keywords=["storage"], implementation_details="a dict"),
        task("T2", "T1")]})
    assert request.tech_stack == "python-api"
    assert request.task("T1").story_points == 3
    assert request.task("T2").depends_on == ["T1"]


@pytest.mark.parametrize(("data", "expected"), [
    ({"tasks": [task("T1"), task("T1")]}, "task 'T1' field id: duplicate id"),
    ({"tasks": [task("T1", "T9")]}, "task 'T1' field depends_on: unknown task 'T9'"),
    ({"tasks": [task("T1", "T2"), task("T2", "T1")]}, "field depends_on: a cycle T1 -> T2 -> T1"),
    ({"tasks": [task("T1", "T1")]}, "a cycle T1 -> T1"),
    ({"tasks": [task("T1", story_points=9)]}, "task 'T1' (tasks[0]) field story_points"),
    ({"tasks": [task("T1", story_points=0)]}, "field story_points"),
    ({"tasks": [task("T1"), {"id": "T2"}]}, "task 'T2' (tasks[1]) field description: missing"),
    ({"tasks": [task("T1", colour="red")]}, "task 'T1' (tasks[0]) field colour: unknown field"),
    ({"tasks": [task("../../x")]}, "field id"),
    ({"tasks": [task("--upload-pack=x")]}, "field id"),
    ({"tasks": []}, "field tasks"),
    ({"tasks": [task("T1", depends_on="T0")]}, "field depends_on"),
    ({"tasks": [task("T1")], "extra": 1}, "field extra: unknown field"),
    ("not an object", "expected an object"),
])
def test_malformed_requests_name_the_task_and_field(data, expected):
    assert expected in rejected(data)


def test_a_long_cycle_is_found_and_named():
    tasks = [task("A", "D"), task("B", "A"), task("C", "B"), task("D", "C"), task("E")]
    message = rejected({"tasks": tasks})
    assert "a cycle" in message
    for name in "ABCD":
        assert name in message.split("a cycle", 1)[1]


def test_levels_critical_path_and_dependents():
    request = parse_request({"tasks": [task("A"), task("B"), task("C", "A"), task("D", "C", "B"),
                                       task("E", "B")]})
    assert dependency_levels(request) == {"A": 0, "B": 0, "C": 1, "D": 2, "E": 1}
    assert critical_path(request) == 3
    assert critical_path(request, {"A": 1, "B": 5, "C": 1, "D": 1, "E": 1}) == 6
    assert dependents(request, "A") == ["C", "D"]
    assert dependents(request, "B") == ["D", "E"]


def test_load_request_from_a_file(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([task("T1")]))  # a bare list is the tasks
    assert [t.id for t in load_request(path).tasks] == ["T1"]
    path.write_text("{not json")
    with pytest.raises(BuildRequestError, match="not valid JSON"):
        load_request(path)
    with pytest.raises(BuildRequestError, match="cannot read"):
        load_request(tmp_path / "missing.json")
