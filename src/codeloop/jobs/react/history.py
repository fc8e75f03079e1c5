"""What the model sees of the conversation: earlier turns as request and answer only, the
current turn in full with older observations shortened, all within a character budget.

Why: a small model's context is short and long prompts are slow to prefill; the final
answer of a turn carries its plan, which is what a follow-up ("yes, do it") needs.
"""

from __future__ import annotations

from typing import Any

FULL_RECENT_OBSERVATIONS = 3
SHORT_OBSERVATION_CHARS = 400


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} characters not shown again)"


def conversation_for_model(messages: list[dict[str, Any]], turn: int,
                           budget_chars: int) -> list[dict[str, str]]:
    earlier = [m for m in messages
               if m["turn"] < turn and m["kind"] in ("request", "answer", "note")]
    current = [m for m in messages if m["turn"] == turn]
    observation_ids = [i for i, m in enumerate(current) if m["kind"] == "observation"]
    keep_full = set(observation_ids[-FULL_RECENT_OBSERVATIONS:])
    shown_current = [
        {"role": m["role"], "content": m["content"] if i in keep_full or m["kind"] != "observation"
         else _shorten(m["content"], SHORT_OBSERVATION_CHARS)}
        for i, m in enumerate(current)
    ]
    shown_earlier = [{"role": m["role"], "content": m["content"]} for m in earlier]

    def size(items: list[dict[str, str]]) -> int:
        return sum(len(item["content"]) for item in items)

    # Over budget: drop the oldest earlier turns first, then shorten the current turn's
    # middle (its request, first and last messages always stay).
    while shown_earlier and size(shown_earlier) + size(shown_current) > budget_chars:
        shown_earlier = shown_earlier[2:] if len(shown_earlier) > 1 else []
    index = 1
    while size(shown_current) > budget_chars and index < len(shown_current) - 1:
        item = shown_current[index]
        item["content"] = _shorten(item["content"], SHORT_OBSERVATION_CHARS // 2)
        index += 1
    return merge_same_roles(shown_earlier + shown_current)


def merge_same_roles(items: list[dict[str, str]]) -> list[dict[str, str]]:
    """Chat templates expect user/assistant to alternate; join neighbours of one role."""
    merged: list[dict[str, str]] = []
    for item in items:
        if merged and merged[-1]["role"] == item["role"]:
            merged[-1] = {"role": item["role"],
                          "content": merged[-1]["content"] + "\n\n" + item["content"]}
        else:
            merged.append(dict(item))
    return merged
