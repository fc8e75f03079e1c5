"""Run it, don't guess it: a question holding a call of the repository's code is answered from
running that call in the sandbox (calls.py, tools/run_call.py). The real sandbox, the real
graph on the scripted model."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from codeloop.ask.calls import call_candidates, find_call, observe, observed_line, where
from codeloop.ask.grounding import check_grounding
from codeloop.ask.service import ask
from codeloop.ask.tools.run_call import VALUE_CAP, clean, parse_channel, run_call
from codeloop.ask.tools.walk import RepoIndex
from codeloop.llm.scripted import ScriptedLLM

CORE = '''import json


def double(x):
    return x * 2


def shout(word):
    print(word.upper())
    return len(word)


def explode(n):
    raise KeyError(f"no {n}")


def needs_missing():
    import not_installed_pkg_xyz
    return not_installed_pkg_xyz


def forever():
    while True:
        pass


def noisy():
    return "`\\x1b[31m" + "A" * 5000


class Box:
    def size(self):
        return 3


LEVELS = ("low", "mid", "high")
'''


@pytest.fixture
def mylib(tmp_path) -> Path:
    root = tmp_path / "mylib-repo"
    (root / "mylib").mkdir(parents=True)
    (root / "mylib" / "__init__.py").write_text("from .core import *\n")
    (root / "mylib" / "core.py").write_text(CORE)
    (root / "README.md").write_text("mylib: small helpers.\n")
    return root


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_call_is_picked_out_of_the_question_when_the_repository_defines_it(mylib):
    index = RepoIndex.open(mylib)
    assert call_candidates("What does `double(21)` return?") == ["double(21)"]
    assert call_candidates("What does f(g(1), [2, 3]) return?")[0] == "f(g(1), [2, 3])"
    call = find_call("What does double(21) return?", index)
    assert call["expr"] == "double(21)"
    assert (call["definition"]["path"], call["definition"]["line"]) == (
        "mylib/core.py", line_of(CORE, "def double"))
    assert find_call("What does print(3) return?", index) is None  # not the repository's
    assert find_call("What does the double function return?", index) is None  # no call
    assert find_call("What does Box().size() return?", index)["name"] == "Box"  # a method


def test_a_returned_value_a_raised_exception_printed_output(mylib):
    index = RepoIndex.open(mylib)
    got = observe(find_call("What does double(21) return?", index), index)
    assert (got["status"], got["value"], got["type"], got["module"]) == (
        "returned", "42", "int", "mylib.core")
    got = observe(find_call("Which exception does explode(7) raise?", index), index)
    assert (got["status"], got["type"], got["message"]) == ("raised", "KeyError", "'no 7'")
    got = observe(find_call("What does shout('hey') print?", index), index)
    assert (got["value"], got["stdout"]) == ("3", "HEY\n")
    got = observe(find_call("What does Box().size() return?", index), index)
    assert got["value"] == "3"
    assert got["seconds"] < 20


def test_a_missing_dependency_is_said_once_and_the_answer_is_marked_as_read(mylib):
    index = RepoIndex.open(mylib)
    got = observe(find_call("What does needs_missing() return?", index), index)
    assert (got["status"], got["name"]) == ("missing", "not_installed_pkg_xyz")
    line = observed_line(got)
    assert line == ("(Could not run `needs_missing()`: missing not_installed_pkg_xyz; this "
                    "answer is from reading the code.)\nRead: mylib/core.py:"
                    f"{line_of(CORE, 'def needs_missing')} (`def needs_missing`)")


def test_a_call_that_never_ends_is_stopped_at_its_time_limit(mylib):
    got = run_call(RepoIndex.open(mylib), "mylib.core", "forever()", [], timeout=2)
    assert got["status"] == "timeout" and "2 s" in got["message"]


def test_the_value_that_comes_back_is_capped_and_escaped(mylib):
    index = RepoIndex.open(mylib)
    got = observe(find_call("What does noisy() return?", index), index)
    assert got["status"] == "returned"
    assert len(got["value"]) <= VALUE_CAP + 1 and got["value"].endswith("…")
    assert "`" not in got["value"] and "\x1b" not in got["value"]
    assert clean("a\x1bb`c\u202ed") == "a\\x1bb'c\\u202ed"
    assert parse_channel("not json") is None
    assert parse_channel('{"status": "run this", "value": "x"}') is None
    assert parse_channel('{"status": "returned", "value": "`x`", "exec": "rm -rf /"}') == {
        "status": "returned", "value": "'x'"}


@pytest.mark.attack
def test_a_hostile_repository_run_this_way_cannot_write_outside_or_reach_the_network(
        tmp_path, mylib):
    outside = tmp_path / "escaped.txt"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    (mylib / "mylib" / "evil.py").write_text(f'''
import os, socket


def attack():
    outcome = []
    for target in ({str(outside)!r}, {str(mylib / "mylib" / "planted.py")!r}):
        try:
            with open(target, "w") as fh:
                fh.write("pwned")
            outcome.append("wrote " + target)
        except OSError as exc:
            outcome.append("write refused")
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2)
        outcome.append("connected")
    except OSError:
        outcome.append("no network")
    try:
        socket.getaddrinfo("pypi.org", 443)
        outcome.append("resolved")
    except OSError:
        outcome.append("no dns")
    return outcome
''')
    index = RepoIndex.open(mylib)
    got = observe(find_call("What does attack() return?", index), index)
    listener.settimeout(0.5)
    with pytest.raises(OSError):  # nothing ever knocked on the host's port
        listener.accept()
    listener.close()
    assert got["status"] == "returned"
    assert not outside.exists()
    assert not (mylib / "mylib" / "planted.py").exists()  # the repository is never written
    assert "connected" not in got["value"] and "resolved" not in got["value"]


def steps(*text):
    return {"match": "Plan how to complete the task", "json": {"steps": list(text)}}


def test_the_answer_states_the_observed_value_and_cites_the_definition_that_ran(mylib):
    llm = ScriptedLLM([steps("Find double", "Read it", "Answer"),
                       {"match": "What running it showed", "reply": "It doubles its input."},
                       {"match": "It cites no line", "reply": "It doubles x."}])
    result = ask("What does double(21) return?", mylib, llm)
    line = line_of(CORE, "def double")
    assert "run_call" in [u["tool"] for u in result.tool_usage]
    assert result.observation["status"] == "returned"
    assert result.final_output == (
        "It doubles its input.\n\nRunning `double(21)` returns `42` (observed in the sandbox).\n"
        f"Definition that ran: mylib/core.py:{line} (`def double`)")
    assert result.grounding["grounded"] == 1
    assert len(llm.calls) == 2  # the tools cited the definition: no round to ask for one
    assert result.retrieved[0]["path"] == "mylib/core.py"  # the definition that ran, first


def test_an_answer_that_states_the_value_and_cites_is_left_as_it_is(mylib):
    line = line_of(CORE, "def double")
    good = f"`double(21)` returns 42: `double` multiplies by two (mylib/core.py:{line})."
    llm = ScriptedLLM([steps("Find double", "Read it", "Answer"), {"match": "What running it showed", "reply": good}])
    result = ask("What does double(21) return?", mylib, llm)
    assert result.final_output == good
    assert len(llm.calls) == 2  # the reasoner and the answer: no citation round


def test_running_can_be_turned_off(mylib):
    line = line_of(CORE, "def double")
    good = f"`double` multiplies by two (mylib/core.py:{line})."
    llm = ScriptedLLM([steps("Find double", "Read it", "Answer"),
                       {"match": "Code from the repository", "reply": good}])
    result = ask("What does double(21) return?", mylib, llm, run_calls=False)
    assert "run_call" not in [u["tool"] for u in result.tool_usage]
    assert result.observation == {} and result.final_output == good


def test_how_many_and_the_value_of_a_module_level_name_are_run_too(mylib):
    index = RepoIndex.open(mylib)
    call = find_call("How many entries does LEVELS hold?", index)
    assert (call["expr"], call["definition"]["kind"]) == ("len(LEVELS)", "variable")
    assert observe(call, index)["value"] == "3"
    got = observe(find_call("What is the value of LEVELS?", index), index)
    assert got["value"] == "('low', 'mid', 'high')"
    assert find_call("How many levels are there?", index) is None  # no name of the code


def test_an_exception_is_stated_with_its_message_or_the_answer_gets_both(mylib):
    from codeloop.ask.calls import states_observation

    obs = {"status": "raised", "type": "KeyError", "message": "'no 7'", "expr": "explode(7)"}
    assert not states_observation("It raises KeyError.", obs)
    assert states_observation("It raises KeyError('no 7').", obs)


def test_an_answer_that_states_the_value_but_cites_badly_gets_the_definition_cited(mylib):
    stated = "`double(21)` returns `42` (mylib/core.py:1)."  # line 1 holds neither quote
    llm = ScriptedLLM([steps("Find double", "Read it", "Answer"),
                       {"match": "What running it showed", "reply": stated}])
    result = ask("What does double(21) return?", mylib, llm)
    assert result.final_output == (f"{stated}\n\nDefinition that ran: mylib/core.py:"
                                   f"{line_of(CORE, 'def double')} (`def double`)")
    assert (result.grounding["cited"], result.grounding["grounded"]) == (2, 1)
    assert len(llm.calls) == 2


def test_the_definition_that_ran_is_quoted_as_its_line_reads(mylib):
    # a method is `def size` on its line (not `def Box.size`), a variable its name (the 1.5B
    # run's `def UNCOUNTABLES` was a quote grounding rightly found nowhere)
    index = RepoIndex.open(mylib)
    cases = {("function", "Box.size", "def size"): "size",
             ("variable", "LEVELS", "LEVELS"): "LEVELS = ",
             ("class", "Box", "class Box"): "class Box"}
    for (kind, qualname, quoted), needle in cases.items():
        obs = {"definition": {"path": "mylib/core.py", "line": line_of(CORE, needle),
                              "kind": kind, "qualname": qualname}}
        text = where(obs)
        assert f"(`{quoted}`)" in text
        assert check_grounding(text, index)["grounded"] == 1, text
