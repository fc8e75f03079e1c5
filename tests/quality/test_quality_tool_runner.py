import re

import pytest

from codeloop.quality.tool_runner import safe_module_filename, staged_copy


@pytest.mark.parametrize(("given", "stem"), [
    ("solution.py", "solution"),
    ("src/pkg/util.py", "util"),
    ("../../etc/evil.py", "evil"),
    ("C:\\work\\tool.py", "tool"),
    ("my-file.name.py", "my_file_name"),
    ("3d.py", "m_3d"),
    ("", "solution"),
    ("pkg/__init__.py", "init"),  # never a package marker: pylint would add its parent
])
def test_safe_module_filename(given, stem):
    name = safe_module_filename(given)
    assert re.fullmatch(rf"{stem}_[0-9a-f]{{12}}\.py", name), name
    assert name.removesuffix(".py").isidentifier()


def test_staged_names_differ_every_time():
    # A name the model could predict could be imported by a tool it names it after.
    assert len({safe_module_filename("calendar.py") for _ in range(20)}) == 20


def test_staged_copy_is_private_and_removed():
    with staged_copy("x = 1\n", "../outside.py") as staged:
        assert staged.path.parent == staged.directory
        assert staged.path.read_text() == "x = 1\n"
        assert [p.name for p in staged.directory.iterdir()] == [staged.path.name]
        assert staged.path.name.startswith("outside_")
    assert not staged.directory.exists()
