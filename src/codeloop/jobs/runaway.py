"""A reply that has started to loop: the same line, with other literals, again and again.

Measured on the 1.5B (build benchmark, stops 65-66): the tests-first reply of notes N1 wrote
`assert slugify('Hello, World! 123! 456!') == ...` with one more number per line until the
1,024-token limit (72-79 s), shortener S1 and S3 did the same with `encode(n)` and
`decode(c)` over the whole alphabet (73-106 s); six such replies in two runs, about a tenth
of a graph's twelve minutes each. The lines before the loop are what the file keeps anyway
(build/cut_tests.py): the reply is stopped once `RUN` lines in a row have one shape (string
and number literals aside), and is read as cut at the limit.
"""

from __future__ import annotations

import re

RUN = 8  # lines of one shape in a row; a test file of distinct checks never has as many

_STRING = re.compile(r"""(?:[rbfRBF]{0,2})("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")


def shape(line: str) -> str:
    """`line` with its string and number literals replaced by one placeholder each."""
    return _NUMBER.sub("0", _STRING.sub("''", line.strip()))


def runaway(text: str, run: int = RUN) -> bool:
    """Whether the last `run` complete non-blank lines of `text` are statements of one
    shape, not all the same line (a repeated `)` or `}` is structure)."""
    lines = [line for line in text.split("\n")[:-1] if line.strip()]
    if len(lines) < run:
        return False
    last = lines[-run:]
    shapes = {shape(line) for line in last}
    if len(shapes) != 1 or len(set(last)) == 1:
        return False
    # statements (`assert f('') == 0`), not the rows of a data table (`("a", 1),`)
    only = next(iter(shapes))
    return len(only) > 12 and bool(re.match(r"[A-Za-z_]", only))
