"""Files a user names: their text or JSON, or one line naming the file and what is wrong,
raised as the caller's own error."""

from pathlib import Path

import pytest

from codeloop.user_files import read_json, read_text


class TaskError(ValueError):
    pass


def test_text_and_json_are_read(tmp_path: Path):
    (tmp_path / "t.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "t.json").write_text('[{"a": 1}]', encoding="utf-8")
    assert read_text(tmp_path / "t.py", TaskError) == "x = 1\n"
    assert read_json(tmp_path / "t.json", TaskError) == [{"a": 1}]


def test_a_missing_file_is_named_with_what_it_is(tmp_path: Path):
    with pytest.raises(TaskError, match=r"^task file not found: .*nope\.json$"):
        read_json(tmp_path / "nope.json", TaskError, "task file")


@pytest.mark.parametrize(("content", "message"), [
    (b"\xff\xfe not utf-8", r"^cannot read test file .*bad: .*codec can't decode"),
    (b"[1, 2", r"bad: not valid JSON \(line 1: "),
    (b"[" * 100_000, r"bad: not valid JSON \(line 1: nested too deep to parse\)"),
])
def test_unreadable_or_malformed_content_is_one_line(tmp_path: Path, content: bytes,
                                                     message: str):
    path = tmp_path / "bad"
    path.write_bytes(content)
    with pytest.raises(TaskError, match=message) as caught:
        read_json(path, TaskError, "test file")
    assert "\n" not in str(caught.value) and caught.value.__cause__ is None


def test_a_directory_is_not_a_file(tmp_path: Path):
    with pytest.raises(TaskError, match="^cannot read file "):
        read_text(tmp_path, TaskError)
