"""read_file / write_file / edit_file through the toolbox, as the agent calls them."""

import os

import pytest

from codeloop.events import EventBus, EventRecorder
from codeloop.tools import ALL_TOOLS, Toolbox


def test_write_then_read_with_line_numbers(box, ws):
    out = box.run("write_file", {"path": "pkg/mod.py", "content": "a = 1\nb = 2"})
    assert out.ok and "Created pkg/mod.py (2 lines)" in out.output
    assert (ws.root / "pkg/mod.py").read_text() == "a = 1\nb = 2\n"
    read = box.run("read_file", {"path": "pkg/mod.py"})
    assert read.ok
    assert "    1| a = 1\n    2| b = 2" in read.output and "lines 1-2 of 2" in read.output


def test_read_a_line_range_and_bad_ranges(box, ws):
    (ws.root / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = box.run("read_file", {"path": "f.txt", "start_line": 3, "end_line": 4})
    assert out.output.splitlines()[1:] == ["    3| line 3", "    4| line 4"]
    assert "past the end" in box.run("read_file", {"path": "f.txt", "start_line": 50}).output
    bad = box.run("read_file", {"path": "f.txt", "start_line": 5, "end_line": 2})
    assert not bad.ok and "before start_line" in bad.output


def test_read_errors_are_clear_observations(box, ws):
    (ws.root / "sub").mkdir()
    (ws.root / "sub" / "real.py").write_text("x = 1\n")
    (ws.root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    missing = box.run("read_file", {"path": "real.py"})
    assert not missing.ok and "does not exist" in missing.output and "sub/real.py" in missing.output
    assert "is a directory" in box.run("read_file", {"path": "sub"}).output
    assert "To create it, use write_file" in box.run("read_file", {"path": "new.py"}).output
    assert "binary file" in box.run("read_file", {"path": "blob.bin"}).output


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_read_permission_denied_is_an_observation(box, ws):
    secret = ws.root / "secret.txt"
    secret.write_text("s")
    secret.chmod(0)
    try:
        out = box.run("read_file", {"path": "secret.txt"})
        assert not out.ok and "permission denied" in out.output
    finally:
        secret.chmod(0o644)


def test_write_replaces_a_line_range(box, ws):
    (ws.root / "m.py").write_text("one\ntwo\nthree\nfour\n")
    out = box.run("write_file", {"path": "m.py", "content": "TWO\nTHREE", "start_line": 2,
                                 "end_line": 3})
    assert out.ok and "now has 4 lines" in out.output
    assert (ws.root / "m.py").read_text() == "one\nTWO\nTHREE\nfour\n"
    out = box.run("write_file", {"path": "m.py", "content": "4", "start_line": 4,
                                 "end_line": 4})
    assert (ws.root / "m.py").read_text() == "one\nTWO\nTHREE\n4\n"
    missing = box.run("write_file", {"path": "new.py", "content": "x", "start_line": 3})
    assert not missing.ok and not (ws.root / "new.py").exists()
    # Lines 1..n of a file that does not exist yet: the model means "create it".
    created = box.run("write_file", {"path": "new.py", "content": "x = 1", "start_line": 1,
                                     "end_line": 1})
    assert created.ok and (ws.root / "new.py").read_text() == "x = 1\n"


def test_write_with_start_line_only_inserts_and_replaces_nothing(box, ws):
    (ws.root / "s.py").write_text("def reverse(t):\n    return t[::-1]")
    out = box.run("write_file", {"path": "s.py", "content": "def first():\n    return 1\n\n",
                                 "start_line": 1})
    assert out.ok and "Inserted 3 line(s) before line 1" in out.output
    assert (ws.root / "s.py").read_text() == (
        "def first():\n    return 1\n\ndef reverse(t):\n    return t[::-1]\n")
    appended = box.run("write_file", {"path": "s.py", "content": "X = 1", "start_line": 6})
    assert appended.ok and (ws.root / "s.py").read_text().endswith("t[::-1]\nX = 1\n")
    past = box.run("write_file", {"path": "s.py", "content": "Y", "start_line": 9})
    assert not past.ok and "insert at 1..7" in past.output
    assert "Y" not in (ws.root / "s.py").read_text()


def test_a_write_or_edit_that_changes_nothing_says_so_and_is_not_a_change(box, ws):
    (ws.root / "a.py").write_text("A = 1\n")
    again = box.run("write_file", {"path": "a.py", "content": "A = 1"})
    assert not again.ok and "Nothing changed: a.py already holds exactly this text" in again.output
    same_range = box.run("write_file", {"path": "a.py", "content": "A = 1", "start_line": 1,
                                        "end_line": 1})
    assert not same_range.ok and "Nothing changed" in same_range.output
    same_edit = box.run("edit_file", {"path": "a.py", "old_text": "A = 1", "new_text": "A = 1"})
    assert not same_edit.ok and "old_text and new_text are the same" in same_edit.output
    changed = box.run("write_file", {"path": "a.py", "content": "A = 2"})
    assert changed.ok and (ws.root / "a.py").read_text() == "A = 2\n"


def test_a_write_to_a_list_of_existing_files_is_refused(box, ws):
    (ws.root / "main.py").write_text("x = 1\n")
    (ws.root / "shop.py").write_text("y = 2\n")
    out = box.run("write_file", {"path": "main.py,shop.py,test_shop.py", "content": "z = 3"})
    assert not out.ok and "one file per call" in out.output and "main.py, shop.py" in out.output
    assert sorted(p.name for p in ws.root.iterdir() if p.is_file()) == ["main.py", "shop.py"]
    # A comma in a new name of no existing file, and an existing file so named, still work.
    assert box.run("write_file", {"path": "notes,draft.txt", "content": "a"}).ok
    assert box.run("write_file", {"path": "notes,draft.txt", "content": "b"}).ok
    assert (ws.root / "notes,draft.txt").read_text() == "b\n"


def test_write_warns_about_python_that_does_not_compile(box, ws):
    out = box.run("write_file", {"path": "bad.py", "content": "def f(:\n    pass\n"})
    assert out.ok and "does not compile" in out.output and "line 1" in out.output


def test_edit_exact_tolerant_and_failed(box, ws):
    (ws.root / "calc.py").write_text("class Calc:\n    def add(self, a, b):\n        return a - b\n")
    exact = box.run("edit_file", {"path": "calc.py", "old_text": "return a - b",
                                  "new_text": "return a + b"})
    assert exact.ok and "replaced lines 3-3" in exact.output
    tolerant = box.run("edit_file", {"path": "calc.py",
                                     "old_text": "def add(self, a, b):\n    return a + b",
                                     "new_text": "def add(self, a, b):\n    return b + a"})
    assert tolerant.ok and "ignoring whitespace" in tolerant.output
    assert (ws.root / "calc.py").read_text() == (
        "class Calc:\n    def add(self, a, b):\n        return b + a\n")
    before = (ws.root / "calc.py").read_text()
    failed = box.run("edit_file", {"path": "calc.py", "old_text": "def add(self, x, y):",
                                   "new_text": "def add(self, p, q):"})
    assert not failed.ok and "no change made" in failed.output
    assert "lines 2-2" in failed.output and "def add(self, a, b):" in failed.output
    assert (ws.root / "calc.py").read_text() == before


def test_edit_keeps_crlf_line_endings(box, ws):
    (ws.root / "w.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    assert box.run("edit_file", {"path": "w.py", "old_text": "b = 2", "new_text": "b = 3"}).ok
    assert (ws.root / "w.py").read_bytes() == b"a = 1\r\nb = 3\r\n"


def test_edit_of_a_missing_file_points_to_write_file(box):
    out = box.run("edit_file", {"path": "nope.py", "old_text": "a", "new_text": "b"})
    assert not out.ok and "write_file" in out.output


def test_path_escapes_are_refused(box, ws, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    (tmp_path / "ws-evil").mkdir()
    os.symlink(outside, ws.root / "link.txt")
    attempts = [
        ("read_file", {"path": "../outside.txt"}),
        ("read_file", {"path": str(outside)}),
        ("read_file", {"path": "../ws-evil/x"}),
        ("read_file", {"path": "link.txt"}),
        ("read_file", {"path": "~/.bashrc"}),
        ("write_file", {"path": "../outside.txt", "content": "pwned"}),
        ("write_file", {"path": ".git/hooks/pre-commit", "content": "pwned"}),
        ("edit_file", {"path": "link.txt", "old_text": "secret", "new_text": "pwned"}),
    ]
    for name, args in attempts:
        out = box.run(name, args)
        assert not out.ok, (name, args, out.output)
        assert "refused" in out.output or "does not exist" in out.output, out.output
    assert outside.read_text() == "secret"
    assert not (ws.root / ".git").exists()


def test_bad_arguments_and_unknown_tools_never_raise(box):
    assert "no tool" in box.run("delete_everything", {}).output
    out = box.run("read_file", {"path": 3})
    assert not out.ok and "bad arguments" in out.output
    out = box.run("read_file", {})
    assert not out.ok and "'path' is a required property" in out.output


def test_tool_calls_are_emitted_as_events(ws):
    bus, recorder = EventBus(), EventRecorder()
    bus.subscribe(recorder)
    box = Toolbox(ws, list(ALL_TOOLS), bus=bus)
    box.run("write_file", {"path": "a.txt", "content": "hi"})
    box.run("read_file", {"path": "missing.txt"})
    calls = recorder.of_type("tool_call")
    assert [(c.tool, c.ok) for c in calls] == [("write_file", True), ("read_file", False)]


def test_edit_drops_line_numbers_copied_from_read_file(box, ws):
    (ws.root / "numbers_util.py").write_text("def is_even(n):\n    return n % 2 == 1\n")
    shown = box.run("read_file", {"path": "numbers_util.py"}).output
    copied = next(line for line in shown.splitlines() if "return" in line)
    assert copied == "    2|     return n % 2 == 1"  # what the model sees, and copies
    out = box.run("edit_file", {"path": "numbers_util.py", "old_text": copied,
                                "new_text": "    2|     return n % 2 == 0"})
    assert out.ok and "line numbers copied from read_file were left out" in out.output
    assert (ws.root / "numbers_util.py").read_text() == (
        "def is_even(n):\n    return n % 2 == 0\n")
    # Numbers on only some lines do not look copied from read_file: nothing changes.
    mixed = box.run("edit_file", {"path": "numbers_util.py",
                                  "old_text": "def is_even(n):\n    2|     return n % 2 == 0",
                                  "new_text": "x"})
    assert not mixed.ok and (ws.root / "numbers_util.py").read_text().startswith("def is_even")
