"""The schedule: tasks start as soon as their dependencies are merged (not level by level),
at most max_parallel at once; a failure blocks its dependents; > 50 % not merged stops it."""

from __future__ import annotations

from codeloop.build.request import parse_request
from codeloop.build.scheduler import Schedule


def graph(*tasks):
    return parse_request({"tasks": [{"id": t, "description": t, "depends_on": list(d)}
                                    for t, *d in tasks]})


def test_dispatch_follows_merges_not_levels():
    # A is slow; C needs only B. C must start while A still runs (a level-by-level
    # scheduler would wait for A).
    s = Schedule(graph(("A",), ("B",), ("C", "B"), ("D", "A", "C")), max_parallel=3)
    assert s.next_ready() == ["A", "B"]
    s.start("A")
    s.start("B")
    assert s.next_ready() == []
    s.merge_done("B")
    assert s.next_ready() == ["C"]
    s.start("C")
    s.merge_done("C")
    assert s.next_ready() == []  # D waits for A
    s.merge_done("A")
    assert s.next_ready() == ["D"]


def test_at_most_max_parallel_start():
    s = Schedule(graph(*[(f"T{i}",) for i in range(6)]), max_parallel=2)
    first = s.next_ready()
    assert first == ["T0", "T1"]
    for t in first:
        s.start(t)
    assert s.next_ready() == []
    s.merge_done("T0")
    assert s.next_ready() == ["T2"]


def test_a_failure_blocks_its_dependents_and_half_stops_the_build():
    s = Schedule(graph(("A",), ("B", "A"), ("C", "B"), ("D",), ("E",)), max_parallel=3)
    for t in s.next_ready():
        s.start(t)
    newly = s.task_failed("A", "tests fail", blocked=True)
    assert newly == ["B", "C"]
    assert s.blocked == ["A", "B", "C"] and "depends on A" in s.failed["C"]
    assert s.too_many_failed() and s.stopped  # 3 of 5 > half
    assert s.next_ready() == []


def test_exactly_half_does_not_stop():
    s = Schedule(graph(("A",), ("B",), ("C",), ("D",)), max_parallel=4)
    for t in s.next_ready():
        s.start(t)
    s.task_failed("A", "x", blocked=True)
    s.task_failed("B", "merge conflict", blocked=False)
    assert not s.too_many_failed() and not s.stopped
    assert s.blocked == ["A"] and set(s.failed) == {"A", "B"}
