"""A tool's text arguments come as ``` blocks in a plain reply (two_step mode): what is taken
from such a reply, what is refused, and what the agent does with a reply that has no block."""

from __future__ import annotations

import json

import pytest
from agent_replies import act, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits
from codeloop.jobs.react.text_args import TextReplyError, parse_text_reply, text_request
from codeloop.tools import edit_file, write_file


def test_the_block_is_the_text_whatever_its_language_and_surroundings():
    reply = "Here is the file:\n```python\ndef f():\n    return '\\n'\n```\nDone."
    assert parse_text_reply(reply, "content", cut_off=False) == "def f():\n    return '\\n'"
    assert parse_text_reply("```\n```", "content", cut_off=False) == ""
    assert parse_text_reply('~~~json\n{"a": 1}\n~~~', "content", cut_off=False) == '{"a": 1}'


def test_a_file_that_holds_fences_itself_stays_whole():
    readme = "# Tool\n\nRun:\n\n```bash\ntool --help\n```\n\nThat is all."
    reply = f"```markdown\n{readme}\n```"
    assert parse_text_reply(reply, "content", cut_off=False) == readme


@pytest.mark.parametrize("reply, cut_off, problem", [
    ('{"content": "def f(): pass"}', False, "no ``` block with the text of content"),
    ("def f():\n    pass", False, "no ``` block with the text of content"),
    ("```python\ndef f():\n    return [1, 2,", True, "content was cut off at the token limit"),
])
def test_replies_without_a_whole_block_are_refused(reply, cut_off, problem):
    with pytest.raises(TextReplyError, match=problem):
        parse_text_reply(reply, "content", cut_off=cut_off)


def test_an_unclosed_block_that_was_not_cut_off_is_taken():
    assert parse_text_reply("```python\nX = 1\n", "content", cut_off=False) == "X = 1"


def test_the_request_says_what_the_block_is_in_the_files_terms():
    def ask(tool, name, args, exists=True):
        return text_request(tool, name, args, exists)

    whole = ask(write_file, "content", {"path": "pkg/a.py", "start_line": 1, "end_line": 2},
                exists=False)
    assert whole.startswith("Now write the whole content of pkg/a.py in one ```python block")
    assert "not JSON" in whole
    lines = ask(write_file, "content", {"path": "a.py", "start_line": 3, "end_line": 4})
    assert "the lines that replace lines 3-4 of a.py" in lines
    insert = ask(write_file, "content", {"path": "a.py", "start_line": 3, "end_line": None})
    assert "the lines to insert before line 3 of a.py" in insert
    old = ask(edit_file, "old_text", {"path": "notes.md"})
    assert old.startswith("Now write the exact lines of notes.md to replace")
    assert "```markdown block" in old
    new = ask(edit_file, "new_text", {"path": "notes.md"})
    assert new.startswith("Now write the lines to put in their place in one ```markdown")


def _session(llm, repo, store, snapshots, bus=None):
    spec = agent_spec("single", repo, limits=AgentLimits(action_mode="two_step"), bus=bus)
    return AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                        thread="t", bus=bus, context_first=False)


def test_a_reply_without_a_block_writes_nothing_and_the_model_is_told(repo, store, snapshots,
                                                                     events):
    bus, recorder = events
    choice = json.dumps({"thought": "write it", "tool": "write_file"})
    args = json.dumps({"path": "add.py", "start_line": None, "end_line": None})
    llm = scripted(choice, args, '{"content": "def add(a, b): return a + b"}',
                   act("write_file", path="add.py", content="def add(a, b):\n    return a + b",
                       start_line=None, end_line=None),
                   finish("Wrote add.py."))
    result = _session(llm, repo, store, snapshots, bus).ask("Create add.py")
    assert result.status == "finished"
    shown = [e.message for e in recorder.of_type("progress") if "invalid reply" in e.message]
    assert shown == [("[agent] invalid reply: arguments of write_file: no ``` block with the "
                      "text of content")]
    told = llm.calls[3][-1].content  # the choice after the refused reply
    assert "not a valid action" in told and "no ``` block with the text of content" in told
    assert (repo.root / "add.py").read_text() == "def add(a, b):\n    return a + b\n"
    # The refused reply's tokens count: three calls for it, three for the write, two to finish.
    assert len(llm.calls) == 8 and result.tokens > 0


def test_an_edit_comes_as_two_blocks(repo, store, snapshots):
    (repo.root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    llm = scripted(act("read_file", path="calc.py", start_line=None, end_line=None),
                   act("edit_file", path="calc.py", old_text="    return a - b",
                       new_text="    return a + b"),
                   finish("Fixed add."))
    result = _session(llm, repo, store, snapshots).ask("Fix add in calc.py")
    assert result.status == "finished"
    assert (repo.root / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    edit_args = next(s for s in llm.schemas if s and set(s.get("properties", {})) == {"path"})
    assert edit_args["required"] == ["path"]
    # One block a reply: the old text, then (seeing its own old text) the new one.
    old_call, new_call = [c for c in llm.calls if c[-1].content.startswith("Now write ")]
    assert "exact lines of calc.py to replace" in old_call[-1].content
    assert new_call[-2].content == "```\n    return a - b\n```"
    assert new_call[-1].content.startswith("Now write the lines to put in their place")
