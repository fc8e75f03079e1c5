"""Static review findings."""

from __future__ import annotations

from codeloop.solve.checks import static_findings


def test_io_globals_and_risky_imports_are_found():
    code = ("import os\nseen = []\n\ndef f(x):\n    global seen\n    print(x)\n"
            "    data = open('x').read()\n    return input()\n")
    found = "\n".join(static_findings(code))
    for expected in ("imports os", "module-level mutable state (seen)", "global state (seen)",
                     "calls print()", "calls open()", "calls input()"):
        assert expected in found


def test_a_pure_function_has_no_findings():
    code = "import math\nPRIMES = [2, 3]\n\ndef f(x):\n    return math.sqrt(x) + PRIMES[0]\n"
    assert static_findings(code) == []


def test_imports_the_task_context_already_makes_are_not_flagged():
    assert static_findings("import sys\n\ndef f():\n    return sys.maxsize\n",
                           context="import sys") == []
