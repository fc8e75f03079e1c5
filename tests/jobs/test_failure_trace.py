"""Reading the tracer's output (jobs/edit_engine/failure_trace.py): what reaches the model, and
what does not when the output is not the runner's (it comes from the model's code)."""

from __future__ import annotations

import json

from codeloop.jobs.edit_engine.failure_trace import MARK, MAX_TEXT, trace_text

REMOVE = {"function": "Inventory.remove", "args": [["name", "'apple'"], ["qty", "2"]],
          "before": {"_stock": "{'apple': 5}", "history": "[]"}, "returned": "3",
          "variables": [["have", "5"], ["left", "3"]],
          "after": {"_stock": "{'apple': 5}", "history": "[('remove', 'apple', 2)]"}}


def _output(tests) -> str:
    return "exit code: 0\nstdout:\nnoise\n" + MARK + json.dumps(tests)


def test_a_call_shows_its_arguments_result_variables_and_what_changed_on_self():
    text = trace_text(_output([{"test": "test_inv.py::test_remove", "calls": [REMOVE]}]),
                      ["inventory.py"])
    assert text.splitlines() == [
        ("What the code did in the failing test test_inv.py::test_remove (the calls into "
         "inventory.py, in order):"),
        "- Inventory.remove(name='apple', qty=2) returned 3",
        "    its variables at the end: have=5, left=3",
        "    self.history: [] -> [('remove', 'apple', 2)]",
        "    self._stock unchanged: {'apple': 5}"]


def test_a_method_that_changed_nothing_lists_no_state_and_a_raise_replaces_the_result():
    reader = {"function": "Inventory.count", "args": [["name", "'apple'"]],
              "before": {"_stock": "{}"}, "after": {"_stock": "{}"}, "returned": "0"}
    failing = {"function": "parse", "args": [["text", "'x'"]], "raised": "ValueError: 'bad'",
               "variables": []}
    text = trace_text(_output([{"test": "t", "calls": [reader, failing]}]), ["m.py"])
    assert "- Inventory.count(name='apple') returned 0\n- parse(text='x') raised " \
           "ValueError: 'bad'" in text
    assert "unchanged" not in text


def test_output_that_is_not_the_runners_gives_nothing():
    for output in ("exit code: 1\nstdout:\nTraceback ...", MARK + "{not json",
                   MARK + json.dumps({"test": "t"}), MARK + json.dumps([["x"]]),
                   MARK + json.dumps([{"test": "t", "calls": "many"}]),
                   _output([{"test": "t", "calls": []}])):
        assert trace_text(output, ["m.py"]) == ""


def test_values_of_the_wrong_type_are_dropped_not_trusted():
    odd = {"function": 7, "args": [["a", 1], "x", ["b", "'2'"]], "returned": {"x": 1}}
    text = trace_text(_output([{"test": "t", "calls": [odd, "junk"]}]), ["m.py"])
    assert "- (a=, b='2') returned " in text


def test_the_text_is_capped():
    many = [dict(REMOVE) for _ in range(400)]
    text = trace_text(_output([{"test": "t", "calls": many}]), ["inventory.py"])
    assert len(text) <= MAX_TEXT + 4 and text.endswith("\n...")


def test_output_nested_too_deep_to_parse_gives_nothing_not_a_crash():
    """The model's code can print its own trace line: JSON nested past the recursion limit
    (json.loads raised RecursionError, which ended the agent's turn)."""
    assert trace_text(MARK + "[" * 6000, ["m.py"]) == ""
