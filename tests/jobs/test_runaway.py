"""A reply that loops over one statement is stopped where the loop shows (jobs/runaway.py),
through the one model-call path (jobs/stage.ask_model); build's tests-first keeps the file
up to there (tests/build/test_build_cut_tests.py). The looping lines are the 1.5B's (build
benchmark, notes N1 at 4c7423d)."""

from __future__ import annotations

from codeloop.jobs.runaway import runaway
from codeloop.jobs.stage import ask_model
from codeloop.llm.scripted import ScriptedLLM

HEAD = "import pytest\nfrom app.models import TodoIn\n\n\ndef test_title():\n"
LOOP = "".join(f"    assert TodoIn(title='a{'!' * n}').title == 'a{'!' * n}'\n"
               for n in range(1, 40))
SLUGS = ["    assert slugify('Hello, World!') == 'hello-world'\n",
         "    assert slugify('Hello, World! 123') == 'hello-world-123'\n",
         "    assert slugify('Hello, World! 123!') == 'hello-world-123'\n",
         "    assert slugify('Hello, World! 123! 456') == 'hello-world-123-456'\n",
         "    assert slugify('Hello, World! 123! 456!') == 'hello-world-123-456'\n",
         "    assert slugify('Hello, World! 123! 456! 789') == 'hello-world-123-456-789'\n",
         "    assert slugify('Hello, World! 123! 456! 789!') == 'hello-world-123-456-789'\n",
         "    assert slugify('Hello, World! 123! 456! 789! 1010') == 'hello-world-123-456-789-1010'\n"]


def test_eight_lines_of_one_shape_are_a_loop_and_a_file_of_distinct_checks_is_not():
    slug_head = "from app.text import slugify\n\n\ndef test_slugify():\n"
    assert not runaway(slug_head + "".join(SLUGS[:7]))
    assert runaway(slug_head + "".join(SLUGS))
    # a line not ended yet is not counted
    assert not runaway(slug_head + "".join(SLUGS[:7]) + "    assert slugify('Hello')")
    distinct = ("def test_store(store):\n    store.add(1)\n    assert store.get(1) == 1\n"
                "    assert store.get(2) is None\n    assert len(store.all()) == 1\n"
                "    store.delete(1)\n    assert store.all() == []\n"
                "    assert store.delete(1) is False\n    assert store.get(1) is None\n")
    assert not runaway(distinct)
    table = "CASES = [\n" + "".join(f"    ('abc{n}', {n}),\n" for n in range(12))
    assert not runaway(table)  # the rows of a table are data, not a loop
    same = "def test_x():\n" + "    assert ok()\n" * 10
    assert not runaway(same)  # one line repeated: cut_tests keeps it once


def test_ask_model_stops_a_looping_reply_and_reads_it_as_cut():
    looping = "```python\n" + HEAD + LOOP + "```\n"
    llm = ScriptedLLM([looping, looping])
    stopped = ask_model(llm, [{"role": "user", "content": "tests"}], stage="t", bus=None,
                        max_tokens=1024, temperature=0.0, until=runaway)
    assert stopped.finish_reason == "length"
    assert stopped.text.count("assert") == 8 and stopped.text.rstrip(" ").endswith("\n")
    assert 0 < stopped.usage.completion_tokens < 100 and stopped.usage.prompt_tokens > 0
    whole = ask_model(llm, [{"role": "user", "content": "tests"}], stage="t", bus=None,
                      max_tokens=1024, temperature=0.0)
    assert whole.finish_reason == "stop" and whole.text.count("assert") == 39
