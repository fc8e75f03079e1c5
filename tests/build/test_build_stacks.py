"""Stacks: the bundled YAML files, a user's file, bad files, and the missing-toolchain line."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from codeloop.build.stacks import (
    StackError,
    bundled_stacks,
    load_stack,
    missing_toolchain,
    project_name,
    render_files,
)


def test_the_four_bundled_stacks_load_and_render():
    assert bundled_stacks() == ["go-api", "nodejs-api", "python-api", "react-spa"]
    for name in bundled_stacks():
        stack = load_stack(name)
        assert stack.name == name and stack.test_command and stack.conventions
        files = render_files({**stack.config_files, **stack.scaffold_files}, "todo-api", name)
        assert any("todo-api" in text for text in files.values()), name
        assert any(stack.is_test_file(path) for path in stack.scaffold_files), name
        assert stack.entry_point in stack.scaffold_files, name  # the integration agent's


def test_python_api_commands_use_codeloops_interpreter():
    import sys

    stack = load_stack("python-api")
    assert stack.commands(stack.test_command)[0] == sys.executable


def test_a_users_stack_file_is_accepted(tmp_path):
    data = yaml.safe_load(resources.files("codeloop.build").joinpath(
        "stacks", "python-api.yaml").read_text())
    data["name"] = "my-api"
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    assert load_stack(None, path).name == "my-api"


BASE = "name: x\nlanguage: py\nsrc_dir: a\ntest_dir: t\ntest_file_glob: '*'\ntest_command: [x]\n"


@pytest.mark.parametrize(("text", "expected"), [
    ("name: x\n", "field language"),
    ("- a list\n", "expected a mapping"),
    ("name: [unclosed\n", "not valid YAML"),
    (BASE.replace("src_dir: a", "src_dir: ../out"), "field src_dir"),
    (BASE + "config_files: {.git/hooks/pre-commit: boom}\n", "field config_files"),
    (BASE + "surprise: 1\n", "field surprise: unknown field"),
])
def test_bad_stack_files_are_one_line_errors(tmp_path, text, expected):
    path = tmp_path / "stack.yaml"
    path.write_text(text)
    with pytest.raises(StackError) as info:
        load_stack(None, path)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_unknown_and_missing_stacks():
    with pytest.raises(StackError, match="unknown stack 'cobol'.*python-api"):
        load_stack("cobol")
    with pytest.raises(StackError, match="no stack"):
        load_stack(None)


def test_a_missing_toolchain_says_what_to_install():
    data = load_stack("go-api").model_dump()
    data["requires"] = [{"binary": "no-such-compiler-xyz", "install": "install the xyz compiler"}]
    stack = type(load_stack("go-api")).model_validate(data)
    line = missing_toolchain(stack)
    assert line == ("the go-api stack needs `no-such-compiler-xyz`, which is not on PATH: "
                    "install the xyz compiler")
    assert missing_toolchain(load_stack("python-api")) == ""


def test_project_names_are_package_safe(tmp_path):
    assert project_name(tmp_path / "My Todo_API!") == "my-todo-api"
    assert project_name(tmp_path / "___") == "project"
