"""The ReAct loop's own messages, from jobs/react/prompts/loop.yaml (read by the kit's
prompt loader, jobs/prompts.py): the request for arguments, the progress note, the notes on
an invalid or repeated action, the request to finish. A job gives its agents their system
prompts itself (AgentSpec.system_prompt)."""

from __future__ import annotations

from typing import Any

from codeloop.jobs.prompts import prompt_file, render


def loop_text(key: str, **values: Any) -> str:
    """One of the loop's messages (loop.yaml `loop:`), e.g. the request for arguments."""
    texts = prompt_file("codeloop.jobs.react", "loop").get("loop")
    if not isinstance(texts, dict):
        raise TypeError("jobs/react/prompts/loop.yaml lacks its `loop:` texts")
    if key not in texts:
        raise KeyError(f"loop.yaml has no loop text {key!r}; known: {', '.join(texts)}")
    return render(texts[key], **values).strip()
