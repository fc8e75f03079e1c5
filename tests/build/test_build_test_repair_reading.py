"""The round that may fix a task's tests is told when a test built a model without a field
it requires (missing_field.py): the 1.5B's notes N2 (stop 65) wrote `NoteIn()` without the
title the task requires in three test files, its right code came back unchanged each time,
and the test repair sent the tests back unchanged, a retry each."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests

MODELS = ("from pydantic import BaseModel, Field\n\n\nclass NoteIn(BaseModel):\n"
          "    title: str = Field(min_length=1, max_length=80)\n    body: str = ''\n")
# two of its three tests wrong: too many to drop as unmet (unmet_tests.py), so the repair
WRONG = ("from app.models import NoteIn\n\n\ndef test_body_defaults_to_empty():\n"
         "    assert NoteIn().body == ''\n\n\ndef test_body_kept():\n"
         "    assert NoteIn(body='x').body == 'x'\n\n\ndef test_title():\n"
         "    assert NoteIn(title='a').title == 'a'\n")
RIGHT = WRONG.replace("NoteIn().body", "NoteIn(title='a').body").replace(
    "NoteIn(body='x')", "NoteIn(title='a', body='x')")


def test_the_test_repair_round_is_told_which_field_its_test_left_out(build):
    request = {"tech_stack": "python-api", "tasks": [{
        "id": "N", "description": "Note data model in app.models: NoteIn (title 1-80 "
                                  "characters, body a string, empty by default), a pydantic "
                                  "model", "depends_on": []}]}
    agents = {"task:N": [reply_with_tests(WRONG), *[file_reply(("app/models.py", MODELS))] * 3,
                         file_reply(("tests/test_n.py", RIGHT))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", "\n".join(built.progress())
    assert (built.out / "tests" / "test_n.py").read_text() == RIGHT
    repair = built.llm_for("task:N").calls[4][-1].content
    assert ("pydantic refused to build NoteIn in tests/test_n.py: NoteIn requires `title`"
            in repair)
    # the repair's reply is capped near the test file's size: the 1.5B's repairs ran to the
    # prompt's 1536-token limit repeating lines (shortener S1, 2.8 minutes)
    assert built.llm_for("task:N").max_tokens[4] == 512
    assert built.llm_for("task:N").max_tokens[1] == 1536
    # the code rounds were not told to pass the field: the call is the test's
    for call in built.llm_for("task:N").calls[1:4]:
        assert "pydantic refused" not in call[-1].content
