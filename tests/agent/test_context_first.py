"""The single agent's context-first edit (jobs/react/context_first.py), on the scripted model
with the real sandbox, real pytest and a real git workspace: the named files and the failing
test output in the first prompt, whole-file replies, the tests run by themselves, a fresh
prompt with the new failure, the test files kept as the specification, and the hand-over to
the ReAct tools when it does not work."""

from __future__ import annotations

from agent_replies import act, action_prompts, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.context_first import RETRY_TEMPERATURE
from codeloop.jobs.react.state import AgentLimits

BUGGY = ('def parse_age(text):\n    """The age as an int, or None."""\n    return int(text)\n\n\n'
         'def greet(name):\n    return "hi " + name\n')
FIXED = ('def parse_age(text):\n    """The age as an int, or None."""\n'
         '    if not text.isdigit():\n        return None\n    return int(text)\n\n\n'
         'def greet(name):\n    return "hi " + name\n')
TESTS = ("from people import parse_age\n\n\ndef test_valid():\n    assert parse_age('42') == 42\n"
         "\n\ndef test_invalid():\n    assert parse_age('abc') is None\n")
REQUEST = "The tests in test_people.py fail. Find and fix the bug in people.py."


def _workspace(repo):
    (repo.root / "people.py").write_text(BUGGY)
    (repo.root / "test_people.py").write_text(TESTS)
    return repo


def _ask(llm, repo, store, snapshots, request=REQUEST, events=None, limits=None):
    bus = events[0] if events else None
    spec = agent_spec("single", repo, limits=limits or AgentLimits(), bus=bus)
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="cf", bus=bus)
    return session.ask(request)


def _whole(path: str, text: str) -> str:
    return f"Here is the fix.\n\nFILE: {path}\n```python\n{text}```\n"


def test_a_repair_is_one_model_call_with_the_module_and_the_failing_tests(repo, store,
                                                                          snapshots, events):
    llm = scripted(_whole("people.py", FIXED))
    result = _ask(llm, _workspace(repo), store, snapshots, events=events)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert (repo.root / "people.py").read_text() == FIXED
    assert (repo.root / "test_people.py").read_text() == TESTS
    [prompt] = llm.calls
    text = prompt[-1].content
    # The module the request names and the test file, whole; the test output as it is now.
    assert "FILE: people.py\n```python\n" + BUGGY in text
    assert "FILE: test_people.py (a test: the specification" in text
    assert "fail now" in text and "1 failed, 1 passed" in text
    assert "Do not change the tests" in text
    assert [c.path for c in result.changes] == ["people.py"]
    tools = [e.tool for e in events[1].events if e.type == "tool_call"]
    assert tools == ["run_bash_command", "write_file", "run_bash_command"]


def test_a_reply_with_only_the_fixed_function_is_merged_into_the_module(repo, store, snapshots):
    only = FIXED.split("\n\n\n")[0] + "\n"
    llm = scripted(_whole("people.py", only))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished"
    assert (repo.root / "people.py").read_text() == FIXED  # greet is kept


def test_a_test_edit_is_refused_and_the_next_attempt_is_told_the_failure(repo, store,
                                                                         snapshots):
    weakened = TESTS.replace("is None", "== 0")
    llm = scripted(_whole("test_people.py", weakened),  # "fix" the test to match the bug
                   _whole("people.py", BUGGY.replace("int(text)", "int(text) if text else 0")),
                   _whole("people.py", FIXED))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished"
    assert (repo.root / "test_people.py").read_text() == TESTS
    assert (repo.root / "people.py").read_text() == FIXED
    second, third = (call[-1].content for call in llm.calls[1:])
    assert "This is attempt 2" in second and "FILE: people.py\n```python\n" + BUGGY in second
    # The third prompt holds the second attempt's code and the failure it gave.
    assert "int(text) if text else 0" in third and "ValueError" in third


def test_after_three_failed_attempts_the_tools_go_on_with_what_was_learnt(repo, store,
                                                                          snapshots):
    wrong = BUGGY.replace("int(text)", "int(text.strip())")
    llm = scripted(_whole("people.py", wrong), "I am not sure.", _whole("people.py", wrong),
                   act("read_file", path="people.py", start_line=None, end_line=None),
                   finish("Could not fix it."))
    limits = AgentLimits(max_steps=5)
    result = _ask(llm, _workspace(repo), store, snapshots, limits=limits)
    assert result.status == "finished" and result.answer == "Could not fix it."
    first_choice = action_prompts(llm)[3]
    context = "\n".join(m.content for m in first_choice)
    assert "A first direct attempt did not finish the request." in context
    assert "attempt 2 changed no file" in context
    assert "int(text.strip())" in context and "1 failed, 1 passed" in context


def test_after_a_failed_direct_edit_the_tools_get_a_smaller_budget(repo, store, snapshots):
    """The tools after three failed direct attempts stop at `after_direct_budget` more
    tokens, well before the turn's own budget."""
    wrong = BUGGY.replace("int(text)", "int(text.strip())")
    reads = [act("read_file", path="people.py", start_line=None, end_line=None)] * 6
    llm = scripted(_whole("people.py", wrong), _whole("people.py", wrong),
                   _whole("people.py", wrong), *reads, finish("Could not fix it."))
    limits = AgentLimits(max_steps=20, token_budget=60_000, after_direct_budget=900)
    result = _ask(llm, _workspace(repo), store, snapshots, limits=limits)
    assert result.status == "token_budget"
    assert "over the budget left for the tools after a direct edit that failed" in result.answer
    assert result.tokens < 60_000
    direct = sum(1 for call in llm.calls if "FILE: people.py" in call[-1].content
                 and "Which line of the code" not in call[-1].content)
    assert direct == 3 and len(llm.calls) < 3 + 2 * 6  # cut before the scripted reads ran out


def test_a_retry_after_a_repeated_reply_is_sampled_not_greedy(repo, store, snapshots):
    """Greedy decoding answers a prompt it has answered before the same way: once a reply
    repeats an earlier one, the next attempt is sampled."""
    wrong = BUGGY.replace("int(text)", "int(text.strip())")
    llm = scripted(_whole("people.py", wrong), _whole("people.py", wrong),
                   _whole("people.py", FIXED))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and (repo.root / "people.py").read_text() == FIXED
    assert llm.temperatures == [0.0, 0.0, RETRY_TEMPERATURE] and RETRY_TEMPERATURE > 0
    # Replies that differ stay greedy.
    other = scripted(_whole("people.py", wrong), "I am not sure.", _whole("people.py", FIXED))
    _ask(other, _workspace(repo), store, snapshots)
    assert other.temperatures == [0.0, 0.0, 0.0]


def test_a_request_that_names_no_file_goes_to_the_tools(repo, store, snapshots):
    llm = scripted(act("list_files", path=".", pattern="*"), finish("A README."))
    result = _ask(llm, repo, store, snapshots, request="What is in this project?")
    assert result.status == "finished" and result.answer == "A README."
    assert len(llm.calls) == 4  # two_step: two calls per action, none before them
    assert not any("FILE: path" in m.content for call in llm.calls for m in call)


def test_a_new_file_without_tests_is_written_and_checked_to_parse(repo, store, snapshots):
    code = "def factorial(n):\n    return 1 if n < 2 else n * factorial(n - 1)\n"
    llm = scripted("Oops:\nFILE: factorial.py\n```python\ndef factorial(n):\n    return (\n```",
                   _whole("factorial.py", code))
    result = _ask(llm, repo, store, snapshots, request="Create factorial.py with factorial(n).")
    assert result.status == "finished" and "parse" in result.answer
    assert (repo.root / "factorial.py").read_text() == code
    second = llm.calls[1][-1].content
    assert "This is attempt 2" in second
    assert "- the new factorial.py does not parse as Python (line 2, `return (`: " in second
    assert "; it was not written" in second
    assert "The project's tests" not in second  # it has none


def test_a_path_outside_the_workspace_is_refused(repo, store, snapshots, tmp_path):
    outside = tmp_path / "evil.py"
    reply = ("FILE: ../evil.py\n```python\nx = 1\n```\n\n" + _whole("people.py", FIXED))
    llm = scripted(reply)
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished"
    assert not outside.exists()
    assert (repo.root / "people.py").read_text() == FIXED


def test_a_named_file_holding_a_secret_goes_to_the_tools_unseen(repo, store, snapshots):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (repo.root / "settings.py").write_text(f'GITHUB_TOKEN = "{token}"\nDEBUG = True\n')
    llm = scripted(act("read_file", path="settings.py", start_line=None, end_line=None),
                   finish("It sets DEBUG."))
    result = _ask(llm, repo, store, snapshots, request="What does settings.py set?")
    assert result.status == "finished", result.answer
    assert not any(token in m.content for call in llm.calls for m in call)
    assert not any("FILE: path" in m.content for call in llm.calls for m in call)


def test_a_change_in_every_file_of_a_small_project_is_one_call(repo, store, snapshots):
    shop = "def calc_total(prices):\n    return sum(prices)\n"
    main = "from shop import calc_total\n\n\ndef report(p):\n    return calc_total(p)\n"
    test = "from shop import calc_total\n\n\ndef test_total():\n    assert calc_total([1, 2]) == 3\n"
    for name, text in (("shop.py", shop), ("main.py", main), ("test_shop.py", test)):
        (repo.root / name).write_text(text)
    renamed = {n: t.replace("calc_total", "compute_total")
               for n, t in (("shop.py", shop), ("main.py", main), ("test_shop.py", test))}
    llm = scripted("".join(_whole(n, t) for n, t in renamed.items()))
    result = _ask(llm, repo, store, snapshots,
                  request="Rename the function calc_total to compute_total in every file.")
    assert result.status == "finished" and "the tests pass" in result.answer
    assert {n: (repo.root / n).read_text() for n in renamed} == renamed
    [prompt] = llm.calls
    assert all(f"FILE: {n}\n" in prompt[-1].content for n in renamed)
    assert "README.md" not in prompt[-1].content  # docs are not source


def test_the_code_under_test_is_followed_one_import_deeper(repo, store, snapshots):
    (repo.root / "helpers.py").write_text("def pct(a, b):\n    return a // b * 100\n")
    (repo.root / "summary.py").write_text(
        "from helpers import pct\n\n\ndef line(a, b):\n    return f'{pct(a, b)}%'\n")
    (repo.root / "test_summary.py").write_text(
        "from summary import line\n\n\ndef test_line():\n    assert line(1, 4) == '25.0%'\n")
    llm = scripted(_whole("helpers.py", "def pct(a, b):\n    return a / b * 100\n"))
    result = _ask(llm, repo, store, snapshots, request="test_summary.py fails. Fix the bug.")
    assert result.status == "finished"
    text = llm.calls[0][-1].content
    assert "FILE: summary.py\n" in text and "FILE: helpers.py\n" in text


def test_a_file_sent_back_unchanged_is_said_so_and_only_functions_are_asked(repo, store,
                                                                           snapshots):
    only_fixed = FIXED.split("\n\n\n")[0] + "\n"
    llm = scripted(_whole("people.py", BUGGY), _whole("people.py", only_fixed))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished"
    assert (repo.root / "people.py").read_text() == FIXED  # merged: greet kept
    first, second = (call[-1].content for call in llm.calls)
    assert ("- attempt 1 sent people.py back unchanged: that code gives the output above; "
            "change the lines it points at") in second
    assert "Reply with only the functions or classes you change" in second
    assert "Reply with only the functions" not in first and "each written whole: a line" in first


def test_sent_back_unchanged_twice_the_model_is_asked_what_is_wrong_first(repo, store,
                                                                         snapshots):
    reading = "int(text) raises on 'abc'; parse_age should return None when it is no number."
    only_buggy = BUGGY.split("\n\n\n")[0] + "\n"
    llm = scripted(_whole("people.py", BUGGY), _whole("people.py", only_buggy), reading,
                   _whole("people.py", FIXED))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and (repo.root / "people.py").read_text() == FIXED
    asked, last = (call[-1].content for call in llm.calls[2:])
    assert "Which line of the code makes the tests fail" in asked and "1 failed" in asked
    assert "```" not in asked.split("fail now:")[1].split("```", 2)[2]  # no code asked for
    assert "What is wrong, as you read it before (check it against the code): " + reading \
        in last



SETTINGS = ('import json\nfrom pathlib import Path\n\n\ndef load():\n'
            '    data = json.loads(Path(__file__).with_name("config.json").read_text())\n'
            '    return {"timeout": data["timeout"]}\n')
SETTINGS_NEW = SETTINGS.replace('return {"timeout": data["timeout"]}',
                                'return {"timeout": data["timeout"], '
                                '"retries": data.get("max_retries", 3)}')
SETTINGS_TESTS = ("from settings import load\n\n\ndef test_timeout():\n"
                  "    assert load()['timeout'] >= 10\n")
CONFIG_REQUEST = ("Set the timeout to 30 in config.json and add max_retries 5 to it. Make "
                  "settings.py read max_retries into the result of load (3 when not set).")


def _config_workspace(repo):
    (repo.root / "config.json").write_text('{\n  "timeout": 10\n}\n')
    (repo.root / "settings.py").write_text(SETTINGS)
    (repo.root / "test_settings.py").write_text(SETTINGS_TESTS)
    return repo


def _json_block(text: str) -> str:
    return f"FILE: config.json\n```json\n{text}```\n\n"


def test_a_json_file_in_the_reply_is_written_beside_the_python(repo, store, snapshots):
    config = '{\n  "timeout": 30,\n  "max_retries": 5\n}\n'
    llm = scripted(_json_block(config) + _whole("settings.py", SETTINGS_NEW))
    result = _ask(llm, _config_workspace(repo), store, snapshots, request=CONFIG_REQUEST)
    assert result.status == "finished"
    assert (repo.root / "config.json").read_text() == config
    assert (repo.root / "settings.py").read_text() == SETTINGS_NEW


def test_a_json_file_that_does_not_parse_is_not_written(repo, store, snapshots):
    broken = '{\n  "timeout": 30,\n  max_retries: 5\n}\n'
    fixed = '{\n  "timeout": 30,\n  "max_retries": 5\n}\n'
    llm = scripted(_json_block(broken), _json_block(fixed), _whole("settings.py", SETTINGS_NEW))
    result = _ask(llm, _config_workspace(repo), store, snapshots, request=CONFIG_REQUEST)
    assert result.status == "finished"
    assert (repo.root / "config.json").read_text() == fixed
    assert "config.json does not parse as JSON" in llm.calls[1][-1].content
    # The tests passed with config.json alone; the request also names settings.py.
    assert "and settings.py has not changed." in llm.calls[2][-1].content
    assert (repo.root / "settings.py").read_text() == SETTINGS_NEW


def test_a_reply_cut_off_at_the_length_limit_is_said_so_and_the_retry_is_sampled(repo, store,
                                                                                  snapshots):
    """The 1.5B's greedy reply can repeat one line until the token limit: cut mid-line, the
    file does not parse and is not written; the next prompt says why, and is sampled."""
    looping = ("FILE: people.py\n```python\ndef parse_age(text):\n"
               + "    assert parse_age('1') == 1\n" * 40 + "    assert parse_a")
    llm = scripted({"reply": looping, "finish": "length"}, _whole("people.py", FIXED))
    result = _ask(llm, _workspace(repo), store, snapshots)
    assert result.status == "finished" and (repo.root / "people.py").read_text() == FIXED
    assert llm.temperatures == [0.0, RETRY_TEMPERATURE]
    second = llm.calls[1][-1].content
    assert "attempt 1 was cut off at the length limit: write each file once" in second
