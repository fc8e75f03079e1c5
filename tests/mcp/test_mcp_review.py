"""A review through `codeloop mcp` (a real subprocess) up to approval and through it: the
diffs come back with their digest; `approve` with a stale digest is refused and writes
nothing; with the digest shown it writes exactly the diff shown. A client that supports
elicitation (over a connection that lets the server ask mid-call) is asked instead."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest
from mcp_kit import connect, structured, text_of, tree
from server_kit import BUGGY, FIXED, REVIEW_SCRIPT, review_workspace, write_script


@pytest.mark.attack
def test_review_then_approve_bound_to_the_digest_shown(tmp_path):
    ws = review_workspace(tmp_path)
    model = write_script(tmp_path, REVIEW_SCRIPT, "review.yaml")

    async def scenario():
        async with connect(tmp_path, model) as client:  # no elicitation: the tools decide
            shown = structured(await client.call_tool(
                "review", {"workspace": str(ws), "files": ["calc.py"]}))
            assert shown["status"] == "awaiting_approval", shown
            [diff] = shown["pending_diffs"]
            assert diff["file_path"].endswith("calc.py")
            assert "+    return a + b" in shown["shown"]
            assert len(shown["diff_digest"]) == 64
            assert (ws / "calc.py").read_text() == BUGGY  # nothing written before approval
            before = tree(ws)

            stale = await client.call_tool("approve", {"run_id": shown["run_id"],
                                                       "digest": "0" * 64})
            assert stale.is_error and "nothing was written" in text_of(stale)
            assert "\n" not in text_of(stale).strip()
            malformed = await client.call_tool("approve", {"run_id": shown["run_id"],
                                                           "digest": "abc"})
            assert malformed.is_error and "digest" in text_of(malformed)
            assert tree(ws) == before
            still = structured(await client.call_tool("run_show",
                                                      {"run_id": shown["run_id"]}))
            assert still["status"] == "awaiting_approval"
            assert still["diff_digest"] == shown["diff_digest"]

            applied = structured(await client.call_tool("approve", {
                "run_id": shown["run_id"], "digest": shown["diff_digest"],
                "message": "LGTM"}))
            assert (applied["status"], applied["outcome"]) == ("succeeded", "applied"), applied
            assert [w.rsplit("/", 1)[-1] for w in applied["written"]] == ["calc.py"]
            again = await client.call_tool("approve", {"run_id": shown["run_id"],
                                                       "digest": shown["diff_digest"]})
            assert again.is_error and "not waiting" in text_of(again)

    anyio.run(scenario)
    assert (ws / "calc.py").read_text() == FIXED


def test_a_client_that_elicits_is_asked_and_its_answer_decides(tmp_path):
    ws = review_workspace(tmp_path)
    model = write_script(tmp_path, REVIEW_SCRIPT, "review.yaml")
    asked: list[str] = []

    async def elicit(_ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True,
                                                            "message": "ok"})

    async def scenario():
        async with connect(tmp_path, model, mode="legacy",
                           elicitation_callback=elicit) as client:
            result = structured(await client.call_tool(
                "review", {"workspace": str(ws), "files": ["calc.py"]}))
            assert (result["status"], result["outcome"]) == ("succeeded", "applied"), result
            assert result["decided_by"] == "elicitation"

    anyio.run(scenario)
    [message] = asked
    assert "calc.py" in message and "+    return a + b" in message
    assert (ws / "calc.py").read_text() == FIXED


def test_a_declined_elicitation_leaves_the_run_waiting(tmp_path):
    ws = review_workspace(tmp_path)
    model = write_script(tmp_path, REVIEW_SCRIPT, "review.yaml")

    async def decline(_ctx, _params):
        return types.ElicitResult(action="decline")

    async def scenario():
        async with connect(tmp_path, model, mode="legacy",
                           elicitation_callback=decline) as client:
            result = structured(await client.call_tool(
                "review", {"workspace": str(ws), "files": ["calc.py"]}))
            assert result["status"] == "awaiting_approval" and result["decided_by"] == ""

    anyio.run(scenario)
    assert (ws / "calc.py").read_text() == BUGGY
