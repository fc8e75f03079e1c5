"""Schemas come from signatures and docstrings."""

import pytest

from codeloop.tools import ALL_TOOLS, read_file, toolset
from codeloop.tools.base import tool


def test_schema_from_signature_and_docstring():
    schema = read_file.parameters_schema()
    assert schema["required"] == ["path"]
    assert schema["properties"]["start_line"]["type"] == ["integer", "null"]
    assert "1-based" in schema["properties"]["start_line"]["description"]
    assert read_file.description.startswith("Read a text file")
    strict = read_file.parameters_schema(all_required=True)
    assert strict["required"] == ["path", "start_line", "end_line"]
    assert strict["additionalProperties"] is False
    assert read_file.signature_line() == (
        "read_file(path: string, start_line: integer = null, end_line: integer = null)")


def test_every_tool_documents_every_argument():
    for t in ALL_TOOLS:
        assert t.description, t.name
        for p in t.params:
            assert p.description, (t.name, p.name)


def test_tool_without_docstring_or_with_unsupported_type_is_rejected():
    def nodoc(ws, a: str) -> str:
        return a

    def badtype(ws, a: list) -> str:
        """Doc."""
        return ""

    with pytest.raises(TypeError, match="docstring"):
        tool(nodoc)
    with pytest.raises(TypeError, match="unsupported type"):
        tool(badtype)


def test_docstring_sections_after_args_are_not_argument_text():
    def f(ws, a: str, b: int = 2) -> str:
        """Do f.

        Args:
            a: the a
               continued
            b: the b

        Returns:
            text
        """
        return a

    made = tool(f)
    assert [p.description for p in made.params] == ["the a continued", "the b"]
    assert made.fill_defaults({"a": "x", "b": None}) == {"a": "x", "b": 2}


def test_role_toolsets():
    assert {t.name for t in toolset("planner")} == {
        "read_file", "list_files", "grep_search", "run_bash_command"}
    assert {t.name for t in toolset("validator")} == {
        "git_diff", "git_status", "lint_file", "read_file"}
    with pytest.raises(KeyError):
        toolset("admin")
