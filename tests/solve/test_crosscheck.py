"""Untested code is cross-checked when asked (`--crosscheck`): for a task with no
examples and no test file, more candidates are written and all of them run (in the sandbox)
on calls the model proposes; the behaviour most of them share wins, the current code
keeping ties. The model's calls run in the trusted harness, so only literal-argument calls
of the function are kept."""

from __future__ import annotations

import ast

import pytest

from codeloop.solve.probes import MAX_PROBES, majority, probe_calls
from codeloop.solve.state import UNTESTED
from codeloop.solve.tasks import Task

SIGNATURE = "def second_largest(nums: list) -> int"


def task() -> Task:
    return Task(task_id="second_largest", signature=SIGNATURE,
                docstring="Return the second largest distinct value in nums.")


def signature() -> ast.FunctionDef:
    return task().signature_node()


def block(body: str) -> str:
    return f"```python\ndef second_largest(nums):\n    {body}\n```"


NOT_DISTINCT = block("return sorted(nums)[-2]")  # misreads "distinct"
DISTINCT = block("return sorted(set(nums))[-2]")
DISTINCT_TOO = block("values = sorted(set(nums), reverse=True)\n    return values[1]")
SMALLEST = block("return min(nums)")
PROBES = ("```python\nsecond_largest([1, 2, 3])\nsecond_largest([5, 5, 4])\n"
          "second_largest([7, 7, 7, 1])\nsecond_largest([])\n```")


def test_probe_calls_keep_literal_calls_of_the_function_only():
    reply = ("Here are some calls:\n```python\n"
             "second_largest([1, 2, 3])\n"
             "print(second_largest([4, 4]))\n"
             "assert second_largest([9, 1]) == 1\n"
             "result = second_largest(nums=[0, -1])\n"
             "second_largest([1, 2, 3])\n"                       # a repeat
             "second_largest(list(range(5)))\n"                  # not a literal
             "second_largest(__import__('os').system('id'))\n"   # not a literal either
             "second_largest([1], [2])\n"                        # too many arguments
             "second_largest()\n"                                # too few
             "other([1, 2])\n"
             "second_largest(*[[1, 2]])\n```")
    assert probe_calls(reply, signature()) == [
        "second_largest([1, 2, 3])", "second_largest([4, 4])", "second_largest([9, 1])",
        "second_largest(nums=[0, -1])"]
    many = "\n".join(f"second_largest([{i}, 1])" for i in range(20))
    assert len(probe_calls(many, signature())) == MAX_PROBES


def test_the_majority_behaviour_wins_and_the_earliest_keeps_a_tie():
    a, b = ("value 1",), ("value 2",)
    assert majority([a, b, b]) == 1
    assert majority([a, b, a, b]) == 0
    assert majority([None, b, a]) == 1
    assert majority([None, None]) is None


def test_a_draft_outvoted_by_the_samples_is_replaced(run):
    r = run(task(), [NOT_DISTINCT, PROBES, DISTINCT, SMALLEST, DISTINCT_TOO], crosscheck=True)
    assert r.stages() == ["generation", "review", "crosscheck"]
    result = r.result
    assert result.verdict == UNTESTED and not result.passed  # agreement is not a test
    assert result.function_code.strip() == DISTINCT.split("\n", 1)[1].rsplit("\n```", 1)[0]
    samples = [a for a in result.attempts if a["strategy"] == "crosscheck"]
    assert [a["accepted"] for a in samples] == [True, False, False]
    # The odd one out is told where it differs; the probe call's tokens count too.
    assert samples[1]["feedback"] == ("second_largest([1, 2, 3]): value 1, where the chosen "
                                      "code gives value 2")
    assert all(a["tokens"] > 0 for a in samples) and samples[0]["tokens"] > samples[1]["tokens"]
    assert "took sample 1" in result.review["notes"][-1]
    reason = result.untested_reason
    assert reason.startswith("the task has no examples") and "2 of 4 candidates" in reason
    # The probes prompt asks for calls only; the samples are the plain task, sampled.
    assert "no results" in r.prompts()[1]
    assert r.llm.calls and "earlier attempt" not in r.prompts()[2]


def test_a_tie_keeps_the_draft(run):
    r = run(task(), [DISTINCT, PROBES, NOT_DISTINCT, DISTINCT_TOO, NOT_DISTINCT],
            crosscheck=True)
    assert "return sorted(set(nums))[-2]" in r.result.function_code
    assert "kept the code" in r.result.review["notes"][-1]
    assert "2 of 4 candidates" in r.result.untested_reason
    assert "they disagree, so read the code" in r.result.untested_reason
    assert not any(a["accepted"] for a in r.result.attempts[1:])


@pytest.mark.parametrize("probes", [
    "I cannot think of any inputs.",
    ("```python\nsecond_largest(__import__('os').system('touch /tmp/pwned'))\n"
     "second_largest(open('/etc/passwd').read())\n```"),
], ids=["no-calls", "hostile-calls"])
def test_no_usable_call_ends_the_cross_check_before_any_sample(run, probes):
    r = run(task(), [DISTINCT, probes], crosscheck=True)
    assert len(r.llm.calls) == 2  # the draft and the probes: no sample is paid for
    assert r.result.verdict == UNTESTED
    assert "cross-check skipped" in r.result.review["notes"][-1]
    assert r.result.untested_reason.startswith("the task has no examples and no test file")


def test_samples_that_do_not_load_are_outvoted(run):
    broken = "```python\ndef second_largest(nums):\n    return sorted(set(nums)[-2]\n```"
    no_function = "```python\nprint('hi')\n```"
    r = run(task(), [DISTINCT, PROBES, broken, no_function, NOT_DISTINCT], crosscheck=True)
    assert "return sorted(set(nums))[-2]" in r.result.function_code
    assert "(2 did not load or had another signature)" in r.result.untested_reason


def test_tested_tasks_and_runs_without_rounds_are_not_cross_checked(run, add_task):
    right = "```python\ndef add(a, b):\n    return a + b\n```"
    r = run(task(), [DISTINCT], max_refinements=0, crosscheck=True)
    assert r.stages() == ["generation", "review"] and len(r.llm.calls) == 1
    assert run(add_task, [right], crosscheck=True).stages() == ["generation", "review"]


def test_without_the_switch_untested_code_is_only_said_to_be_untested(run):
    r = run(task(), [NOT_DISTINCT])
    assert r.stages() == ["generation", "review"] and len(r.llm.calls) == 1
    assert r.result.verdict == UNTESTED
    assert r.result.untested_reason.startswith("the task has no examples and no test file")
