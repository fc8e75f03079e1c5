import json

import pytest

from codeloop.bench.datasets import DatasetError, load_dataset, load_humaneval, load_mbpp, select


def test_humaneval_has_164_problems_with_tests(humaneval):
    assert len(humaneval) == 164
    first = humaneval["HumanEval/0"]
    assert first.entry_point == "has_close_elements"
    assert "def check(candidate)" in first.check_source
    assert first.reference.strip().startswith("for idx")


def test_mbpp_test_split_is_ids_11_to_510(mbpp):
    numbers = sorted(int(t.split("/")[1]) for t in mbpp)
    assert len(numbers) == 257
    assert numbers[0] >= 11 and numbers[-1] <= 510
    p = mbpp["Mbpp/82"]
    assert p.entry_point == "volume_sphere"
    assert p.test_imports == ("import math",)
    assert p.example == p.asserts[0]


def test_public_problem_carries_no_hidden_tests(humaneval, mbpp):
    for problem in (humaneval["HumanEval/0"], mbpp["Mbpp/82"]):
        public = problem.public()
        assert not hasattr(public, "check_source") and not hasattr(public, "asserts")
        assert not hasattr(public, "reference")
    assert mbpp["Mbpp/82"].public().example == mbpp["Mbpp/82"].asserts[0]


def test_hidden_lines_name_the_entry_point_not_candidate(humaneval, mbpp):
    lines = humaneval["HumanEval/0"].hidden_test_lines()
    assert lines and all("has_close_elements(" in ln and "candidate" not in ln for ln in lines)
    mbpp_lines = mbpp["Mbpp/82"].hidden_test_lines()
    assert mbpp_lines == list(mbpp["Mbpp/82"].asserts[1:])


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"a": 1}', "expected a JSON list"),
    ('[{"task_id": 11, "prompt": "p"}]', "missing field(s) code, test_list"),
    ('[{"task_id": "x", "prompt": "p", "code": "", "test_list": ["assert f(1)"]}]',
     "task_id must be an integer"),
    ('[{"task_id": 11, "prompt": "p", "code": "", "test_list": []}]', "non-empty list"),
    ('[{"task_id": 1, "prompt": "p", "code": "", "test_list": ["assert f(1)"]}]',
     "no problems in the test split"),
    ('[{"task_id": 11, "prompt": "p", "code": "", "test_list": ["assert f(("]}]',
     "first test is not valid Python"),
])
def test_bad_mbpp_files_give_clear_errors(tmp_path, content, message):
    path = tmp_path / "mbpp.json"
    path.write_text(content)
    with pytest.raises(DatasetError) as err:
        load_mbpp(path)
    assert message in str(err.value)
    assert str(path) in str(err.value)


def test_missing_files_are_named(tmp_path):
    with pytest.raises(DatasetError, match="MBPP data not found: .*nope.json"):
        load_mbpp(tmp_path / "nope.json")
    with pytest.raises(DatasetError, match="HumanEval data not found"):
        load_humaneval(tmp_path / "nope.jsonl")
    with pytest.raises(DatasetError, match="needs --data"):
        load_dataset("mbpp")
    with pytest.raises(DatasetError, match="unknown dataset"):
        load_dataset("apps")


def test_bad_humaneval_file(tmp_path):
    path = tmp_path / "he.jsonl"
    path.write_text(json.dumps({"task_id": "X/0", "prompt": "def f():\n"}) + "\n")
    with pytest.raises(DatasetError, match=r"he.jsonl:1: missing field\(s\) entry_point, test"):
        load_humaneval(path)
    path.write_text("{broken\n")
    with pytest.raises(DatasetError, match="he.jsonl:1: not valid JSON"):
        load_humaneval(path)


def test_select_by_ids_and_limit(humaneval):
    problems = list(humaneval.values())
    chosen = select(problems, ids=["HumanEval/3", "7", "3"])
    assert [p.task_id for p in chosen] == ["HumanEval/3", "HumanEval/7"]
    assert [p.task_id for p in select(problems, limit=2)] == ["HumanEval/0", "HumanEval/1"]
    with pytest.raises(DatasetError, match="unknown problem id.*HumanEval/999"):
        select(problems, ids=["HumanEval/999"])
    with pytest.raises(DatasetError, match="at least 1"):
        select(problems, limit=0)
