"""Task model, task files and their errors, bundled tasks."""

from __future__ import annotations

import json

import pytest

from codeloop.docstring_examples.parse import task_assertions
from codeloop.solve.tasks import (
    Task,
    TaskFileError,
    UnknownTaskError,
    load_bundled_tasks,
    load_task_file,
    matching_test_file,
    select_task,
)


def _write(tmp_path, data) -> object:
    path = tmp_path / "t-tasks.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_entry_point_comes_from_the_signature():
    task = Task(task_id="x", signature="def count_vowels(s: str) -> int", docstring="Count.")
    assert task.entry_point == "count_vowels"
    assert task.function_stub().startswith("def count_vowels(s: str) -> int:\n    \"\"\"\n")


def test_the_model_is_shown_every_example_once():
    task = Task(task_id="x", signature="def count_vowels(s: str) -> int",
                docstring="Count vowels.\n>>> count_vowels('a')\n1",
                examples=">>> count_vowels('a')\n1\ncount_vowels('Hello') == 2")
    source = task.prompt_source()
    compile(source, "prompt", "exec")
    assert "count_vowels('Hello') == 2" in source  # a task file's example, not in the docstring
    assert source.count(">>> count_vowels('a')") == 1  # the docstring's own, not repeated
    assert Task(task_id="y", signature="def f()", docstring="F.").unstated_examples() == []


def test_from_prompt_splits_context_signature_and_docstring():
    prompt = ('from typing import List\n\n\ndef helper(x):\n    return x\n\n\n'
              'def solve(nums: List[int],\n          k: int) -> int:\n'
              '    """ Sum.\n    >>> solve([1], 1)\n    1\n    """\n')
    task = Task.from_prompt("HE/1", prompt, "solve")
    assert task.entry_point == "solve"
    assert task.signature == "def solve(nums: List[int],\n          k: int) -> int:"
    assert task.docstring.startswith("Sum.\n>>> solve([1], 1)")
    assert task.context.startswith("from typing import List") and "def helper" in task.context
    compile(task.prompt_source(), "prompt", "exec")


def test_a_description_after_imports_in_the_body_is_the_docstring():
    # Python sees no docstring here, but the text and its examples are still the task's.
    prompt = ('def fill(grid, capacity):\n    import math\n    """\n    Count the lowerings.\n\n'
              '    Example 1:\n        Input:\n            grid : [[0, 1], [1, 1]]\n'
              '            capacity : 1\n        Output: 3\n    """\n')
    task = Task.from_prompt("HE/115", prompt, "fill")
    assert task.docstring.startswith("Count the lowerings.\n\nExample 1:")
    params = [a.arg for a in task.signature_node().args.args]
    assert task_assertions("", task.docstring, "fill", "", params=params) == [
        "fill([[0, 1], [1, 1]], 1) == 3"]
    assert task.prompt_source() == prompt.strip()  # the model still sees the prompt as given
    code_first = Task.from_prompt("x", 'def f():\n    x = 1\n    """Not a docstring."""\n', "f")
    assert code_first.docstring == ""


def test_malformed_entries_name_the_field_and_the_entry(tmp_path):
    good = {"task_id": "a", "signature": "def a(x)", "docstring": "A."}
    with pytest.raises(TaskFileError, match=r"entry #2 \(b\): missing field 'docstring'"):
        load_task_file(_write(tmp_path, [good, {"task_id": "b", "signature": "def b()"}]))
    with pytest.raises(TaskFileError, match=r"entry #1 \(c\): field 'signature': must start"):
        load_task_file(_write(tmp_path, [{"task_id": "c", "signature": "c(x)", "docstring": ""}]))
    with pytest.raises(TaskFileError, match=r"entry #1 \(d\): unknown field 'exmples'"):
        load_task_file(_write(tmp_path, [{**good, "task_id": "d", "exmples": ""}]))
    with pytest.raises(TaskFileError, match="expected a JSON list"):
        load_task_file(_write(tmp_path, {"task_id": "a"}))
    with pytest.raises(TaskFileError, match="not valid JSON"):
        load_task_file(_write(tmp_path, "[{"))
    with pytest.raises(TaskFileError, match="duplicate task_id 'a'"):
        load_task_file(_write(tmp_path, [good, good]))
    with pytest.raises(TaskFileError, match="task file not found"):
        load_task_file(tmp_path / "nope.json")


def test_unknown_task_id_lists_the_ids():
    tasks = [Task(task_id=i, signature=f"def {i}()", docstring="") for i in ("p", "q")]
    with pytest.raises(UnknownTaskError, match="unknown task id 'z'.*: p, q"):
        select_task(tasks, "z")
    assert select_task(tasks, "q").task_id == "q"


def test_bundled_tasks_are_found_and_valid():
    bundled = load_bundled_tasks()
    ids = [t.task_id for _, t in bundled]
    assert "count_vowels" in ids
    assert len(ids) == len(set(ids))


def test_matching_test_file(tmp_path):
    tasks = tmp_path / "strings-tasks.json"
    assert matching_test_file(tasks) is None
    (tmp_path / "strings-tests.py").write_text("")
    assert matching_test_file(tasks) == tmp_path / "strings-tests.py"


def test_a_task_given_as_source_is_shown_verbatim_unless_examples_are_missing_from_it():
    from codeloop.solve.tasks import Task

    prompt = 'def inc(x):\n    """ Add one.\n    >>> inc(1)\n    2\n    """\n'
    task = Task.from_prompt("inc", prompt)
    assert task.prompt_source() == prompt.strip()
    more = task.model_copy(update={"examples": "inc(5) == 6"})
    assert "inc(5) == 6" in more.prompt_source() and more.prompt_source() != prompt.strip()

