"""JSON nested past the recursion limit, from each place that reads untrusted JSON: a clear
"not valid JSON" where json.loads raised RecursionError and ended the job with a traceback
(jsonsafe.py)."""

from __future__ import annotations

import json

import pytest

from codeloop import jsonsafe
from codeloop.ask.tools.dependencies import extract_dependencies
from codeloop.jobs.edit_engine.context_plan import Plan
from codeloop.jobs.edit_engine.reply_files import files_from_reply
from codeloop.llm.base import InvalidStructuredOutput
from codeloop.llm.schema import parse_json_text

DEEP = "[" * 6000


def test_loads_reports_deep_nesting_as_a_decode_error():
    with pytest.raises(json.JSONDecodeError, match="nested too deep"):
        jsonsafe.loads(DEEP)
    assert jsonsafe.loads('{"a": [1]}') == {"a": [1]}


def test_a_model_reply_nested_too_deep_is_an_invalid_reply():
    with pytest.raises(InvalidStructuredOutput, match="not JSON"):
        parse_json_text(DEEP)


def test_a_json_file_in_a_reply_nested_too_deep_is_not_written():
    plan = Plan(edit=["config.json"], spec=[], new=[], protect=False)
    changes, problems = files_from_reply(f"FILE: config.json\n```json\n{DEEP}\n```\n", plan,
                                         {"config.json": "{}\n"})
    assert changes == {} and "does not parse as JSON" in problems[0]


def test_a_package_json_nested_too_deep_is_an_error_of_that_file(tmp_path):
    (tmp_path / "package.json").write_text(DEEP)
    (tmp_path / "requirements.txt").write_text("requests==2.0\n")
    deps = extract_dependencies(tmp_path)
    assert [d["name"] for d in deps["runtime"]] == ["requests"]
    assert deps["errors"] and deps["errors"][0].startswith("package.json: JSONDecodeError")
