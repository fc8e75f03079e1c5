"""Cycles of moves, not only one repeated action: the loop's second repeat detector.

Measured (an outside run, 1.5B): the agent went round "edit the test, lint, run the tests"
until its token budget ran out. No single action repeated (each edit's text differed), so the
repeat detector never fired. A move here is the tool and what it works on (a path, a
command, a pattern), not its full arguments: three rounds of the same sequence of moves is a
cycle.
"""

from __future__ import annotations

from typing import Any

MIN_PERIOD, MAX_PERIOD = 2, 4
ROUNDS = 3  # a sequence seen this many times in a row is a cycle
_TARGET_KEYS = ("path", "command", "pattern", "query")


def move(tool: str, args: dict[str, Any]) -> str:
    target = next((str(args[k]) for k in _TARGET_KEYS if isinstance(args.get(k), str)), "")
    return f"{tool}:{target.strip()[:200]}"


def cycle(moves: list[str]) -> list[str] | None:
    """The repeated block when the last moves are ROUNDS rounds of one block of 2-4 moves
    (with at least two different moves in it); else None."""
    for period in range(MIN_PERIOD, MAX_PERIOD + 1):
        tail = moves[-period * ROUNDS:]
        if len(tail) < period * ROUNDS:
            break
        block = tail[:period]
        if len(set(block)) > 1 and all(tail[i] == block[i % period] for i in range(len(tail))):
            return block
    return None
