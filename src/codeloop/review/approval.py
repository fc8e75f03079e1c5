"""What a person approves is exactly what is written (design principle 16).

The pending change is bound to a digest: sha256 over each pending diff's path, the text it
replaces and the text it writes. Every front end shows it with the diffs, and a decision
names it: `decide_review` refuses an approval whose digest is not the pending change's (say,
a page still showing the change from before someone else's reject), and persistence
recomputes it on what it is about to write.

What a waiting run shows is read from its checkpoint, the very state persistence writes
from, never from the run's stored result: that summary is redacted (secrets out of the
store), and a redacted diff would hide what the model wrote from the person approving it.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.review.digest import diff_digest
from codeloop.store import RunNotResumable

DIGEST = re.compile(r"^[0-9a-f]{64}$")


class DigestRequired(RunNotResumable):
    """An approval that names no digest: it would approve whatever is pending by then."""


class DiffChanged(RunNotResumable):
    """The decision names another diff than the one pending now."""


def checkpoint_values(store, run_id: str) -> dict[str, Any]:
    """The run's state at its last checkpoint ({} when it has none). No model is needed:
    the graph is only built to read its state."""
    from codeloop.events import EventBus
    from codeloop.review.context import ReviewContext
    from codeloop.review.graph import build_graph

    graph = build_graph(ReviewContext.from_settings(None, EventBus()),
                        checkpointer=store.checkpointer())
    snapshot = graph.get_state({"configurable": {"thread_id": run_id}})
    return dict(snapshot.values or {})


def check_decision(run_id: str, pending: list[dict[str, Any]], *, approved: bool,
                   digest: str | None) -> None:
    """Raise DigestRequired / DiffChanged (one line) unless the decision may go on: an
    approval names the pending diffs' digest; a rejection may name one (then it must match)."""
    if digest is None or not str(digest).strip():
        if approved:
            raise DigestRequired(
                f"approving run {run_id}: the digest is required, the diff_digest of the "
                "diffs you reviewed (shown with them): `codeloop approve RUN_ID --digest "
                "SHA256`, or \"digest\" in the API body")
        return
    current = diff_digest(pending)
    if str(digest).strip().lower() != current:
        raise DiffChanged(
            f"run {run_id}'s pending change is not the one you saw (digest "
            f"{str(digest).strip()[:12]}..., now {current[:12]}...): nothing was written; "
            "look at the new diff and decide again")
