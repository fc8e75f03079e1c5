"""A tool's text arguments come as ``` blocks in a plain reply (two_step mode): what is taken
from such a reply, what is refused, and what the agent does with a reply that has no block."""

from __future__ import annotations

import json

import pytest
from agent_replies import act, finish, scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.agent.state import AgentLimits
from codeloop.agent.text_args import TextReplyError, parse_text_reply, text_request
from codeloop.tools import edit_file, write_file

CONTENT = ("content",)
EDIT = ("old_text", "new_text")


def test_one_block_is_the_text_whatever_its_language_and_surroundings():
    reply = "Here is the file:\n```python\ndef f():\n    return '\\n'\n```\nDone."
    assert parse_text_reply(reply, CONTENT, cut_off=False) == {
        "content": "def f():\n    return '\\n'"}
    assert parse_text_reply("```\n```", CONTENT, cut_off=False) == {"content": ""}
    assert parse_text_reply("~~~json\n{\"a\": 1}\n~~~", CONTENT, cut_off=False) == {
        "content": '{"a": 1}'}


def test_a_file_that_holds_fences_itself_stays_whole():
    readme = "# Tool\n\nRun:\n\n```bash\ntool --help\n```\n\nThat is all."
    reply = f"```markdown\n{readme}\n```"
    assert parse_text_reply(reply, CONTENT, cut_off=False) == {"content": readme}


def test_two_blocks_are_old_and_new_text_in_order():
    reply = "```python\n    return a - b\n```\nwith\n```python\n    return a + b\n```"
    assert parse_text_reply(reply, EDIT, cut_off=False) == {
        "old_text": "    return a - b", "new_text": "    return a + b"}


@pytest.mark.parametrize("reply, names, cut_off, problem", [
    ('{"content": "def f(): pass"}', CONTENT, False, "no ``` block"),
    ("def f():\n    pass", CONTENT, False, "no ``` block"),
    ("```python\ndef f():\n    return [1, 2,", CONTENT, True, "cut off at the token limit"),
    ("```\nold\n```", EDIT, False, "1 ``` block(s) where 2 were asked for"),
    ("```\nold\n```\n```\nnew and cut", EDIT, True, "new_text was cut off"),
])
def test_replies_without_the_blocks_asked_for_are_refused(reply, names, cut_off, problem):
    with pytest.raises(TextReplyError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_text_reply(reply, names, cut_off=cut_off)


def test_an_unclosed_block_that_was_not_cut_off_is_taken():
    assert parse_text_reply("```python\nX = 1\n", CONTENT, cut_off=False) == {"content": "X = 1"}


def test_the_request_says_what_the_block_is_in_the_files_terms():
    whole = text_request(write_file, {"path": "pkg/a.py", "start_line": 1, "end_line": 2},
                         exists=False)
    assert whole.startswith("Now write the whole content of pkg/a.py in one ```python block")
    assert "not JSON" in whole
    lines = text_request(write_file, {"path": "a.py", "start_line": 3, "end_line": 4},
                         exists=True)
    assert "the lines that replace lines 3-4 of a.py" in lines
    insert = text_request(write_file, {"path": "a.py", "start_line": 3, "end_line": None},
                          exists=True)
    assert "the lines to insert before line 3 of a.py" in insert
    edit = text_request(edit_file, {"path": "notes.md"}, exists=True)
    assert edit.startswith("Now write two ```markdown blocks for notes.md. First block")


def _session(llm, repo, store, snapshots, bus=None):
    spec = agent_spec("single", repo, limits=AgentLimits(action_mode="two_step"), bus=bus)
    return AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                        thread="t", bus=bus)


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
