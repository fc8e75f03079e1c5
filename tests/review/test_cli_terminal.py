"""The approval in a real terminal: `codeloop review` runs in a pseudo-terminal, shows the diff
and asks; a rejection with a message goes to the refiner and the refined diff is asked about
again; approving writes the files. Quitting leaves the run waiting, with the resume lines."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import yaml

from codeloop.store import RunStore

CODELOOP = str(Path(sys.executable).with_name("codeloop"))
DIV = "def div(a, b):\n    return a / b\n"
GUARD_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a / b\n=======\n    if b == 0:\n"
              '        raise ValueError("division by zero")\n    return a / b\n'
              ">>>>>>> REPLACE\n")
DOC_EDIT = ("calc.py\n<<<<<<< SEARCH\ndef div(a, b):\n=======\ndef div(a, b):\n"
            '    """a / b; ValueError when b is 0."""\n>>>>>>> REPLACE\n')
PROMPT = "Apply these changes?"
# Answers by what is asked (see test_cli_flow.py): guard, docstring when told, approve the
# guarded file.
RULES = [{"match": "add a docstring", "reply": DOC_EDIT},
         {"match": "Reply with every file you change", "reply": GUARD_EDIT},
         {"match": 'raise ValueError("division by zero")',
          "json": {"approved": True, "issues": [], "suggestions": []}},
         {"match": "Answer with JSON",
          "json": {"approved": False, "issues": ["calc.py:2 b may be 0"], "suggestions": []}}]


class Terminal:
    """A command on a pseudo-terminal: wait for text, type lines, collect everything."""

    def __init__(self, args: list[str]) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "TERM": "dumb", "COLUMNS": "160", "LINES": "50"}
        self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave,
                                        env=env, close_fds=True)
        os.close(slave)
        self.text = ""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the command ended and closed the terminal
            return False
        if not chunk:
            return False
        self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, needle: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.text.count(needle) < count:
            assert time.monotonic() < deadline, f"no {needle!r} in:\n{self.text}"
            assert self._read(0.2) or self.text.count(needle) >= count, self.text

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def wait(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while self._read(0.2):
            assert time.monotonic() < deadline, self.text
        code = self.process.wait(timeout=timeout)
        os.close(self.master)
        return code


def _start(tmp_path, entries) -> tuple[Terminal, Path, str]:
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "calc.py").write_text(DIV)
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(entries))
    store = str(tmp_path / "runs.sqlite")
    request = "raise ValueError on division by zero"
    term = Terminal([CODELOOP, "review", "calc.py", "-r", request, "-w", str(ws),
                     "--model", f"scripted:{script}", "--store", store])
    return term, ws, store


def test_reject_then_approve_at_the_terminal(tmp_path):
    term, ws, store = _start(tmp_path, RULES)
    try:
        term.expect(PROMPT)
        assert "calc.py  +2 -0" in term.text
        assert (ws / "calc.py").read_text() == DIV  # asked before anything is written
        term.type("reject")
        term.expect("What should change?")
        term.type("")  # an empty message is asked again
        term.expect("A rejection needs a message.")
        term.type("add a docstring")
        term.expect(PROMPT, count=2)
        assert '+    """a / b; ValueError when b is 0."""' in term.text
        term.type("approve")
        term.expect("Message")
        term.type("")  # the default message
        assert term.wait() == 0, term.text
    finally:
        if term.process.poll() is None:
            term.process.kill()
    assert re.search(r"succeeded \(applied\)\s+Applied: wrote calc.py", term.text), term.text
    text = (ws / "calc.py").read_text()
    assert "raise ValueError" in text and '"""a / b; ValueError when b is 0."""' in text
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.status == "succeeded"


def test_quit_at_the_terminal_leaves_the_run_waiting(tmp_path):
    term, ws, store = _start(tmp_path, RULES)
    try:
        term.expect(PROMPT)
        term.type("quit")
        assert term.wait() == 0, term.text
    finally:
        if term.process.poll() is None:
            term.process.kill()
    with RunStore(store) as runs:
        (run,) = runs.list_runs("review")
        assert run.status == "awaiting_approval"
    assert f'codeloop approve {run.id} --digest {run.result["diff_digest"]} -m "LGTM" ' \
           f'--store {store}' in term.text
    assert term.text.count("calc.py  +2 -0") == 1  # the diff is not shown a second time
    assert (ws / "calc.py").read_text() == DIV
