import pytest

from codeloop.quality.tool_runner import safe_module_filename, staged_copy


@pytest.mark.parametrize(("given", "safe"), [
    ("solution.py", "solution.py"),
    ("src/pkg/util.py", "util.py"),
    ("../../etc/evil.py", "evil.py"),
    ("C:\\work\\tool.py", "tool.py"),
    ("my-file.name.py", "my_file_name.py"),
    ("3d.py", "m_3d.py"),
    ("", "solution.py"),
])
def test_safe_module_filename(given, safe):
    assert safe_module_filename(given) == safe


def test_staged_copy_is_private_and_removed():
    with staged_copy("x = 1\n", "../outside.py") as staged:
        assert staged.path.parent == staged.directory
        assert staged.path.read_text() == "x = 1\n"
        assert [p.name for p in staged.directory.iterdir()] == ["outside.py"]
    assert not staged.directory.exists()
