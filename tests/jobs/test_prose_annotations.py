"""An annotation in prose copied from a request (`-> list of Bookmark`) costs the annotation,
not the file (jobs/edit_engine/prose_annotations.py); other text that does not parse is
refused with the line the parser stopped at."""

from __future__ import annotations

import ast

from codeloop.jobs.edit_engine.context_plan import Plan
from codeloop.jobs.edit_engine.prose_annotations import syntax_problem, without_prose_annotations
from codeloop.jobs.edit_engine.reply_files import files_from_reply

# The 1.5B's reply for bookmarks B2 at 48067b3 (build benchmark), four times in a row.
STORE = '''from app.models import BookmarkIn, Bookmark

class BookmarkStore:
    def __init__(self):
        self.store = {}

    def get(self, id: int) -> Bookmark or None:
        return self.store.get(id)

    def all(self) -> list of Bookmark:
        return list(self.store.values())

    def with_tag(self, tag: str) -> list of Bookmark:  # the task's words
        return [b for b in self.store.values() if tag in b.tags]
'''


def test_return_annotations_in_prose_are_taken_out_and_the_code_kept():
    mended, taken = without_prose_annotations(STORE)
    assert taken == ["list of Bookmark", "list of Bookmark"]
    tree = ast.parse(mended)
    store = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    methods = {f.name: f for f in store.body if isinstance(f, ast.FunctionDef)}
    assert methods["all"].returns is None and methods["with_tag"].returns is None
    assert methods["get"].returns is not None  # `Bookmark or None` is Python: kept
    assert "def with_tag(self, tag: str):  # the task's words\n" in mended
    assert mended.count("\n") == STORE.count("\n")


def test_a_parameter_annotation_in_prose_and_a_signature_over_lines():
    text = ("def tagged(items: list of Bookmark, tag: str) -> list:\n    return items\n\n"
            "def pick(items,\n         key) -> one of the items:\n    return items[key]\n")
    mended, taken = without_prose_annotations(text)
    assert taken == ["list of Bookmark", "one of the items"]
    assert "def tagged(items, tag: str) -> list:\n" in mended
    assert "         key):\n" in mended
    ast.parse(mended)


def test_text_whose_fault_is_not_an_annotation_is_left_as_it_was():
    broken = "def all(self) -> list of Bookmark:\n    return [x for x in\n"
    assert without_prose_annotations(broken) == (broken, [])
    assert without_prose_annotations("x = (1,\n") == ("x = (1,\n", [])
    fine = "def f(x: int) -> list[int]:\n    return [x]\n"
    assert without_prose_annotations(fine) == (fine, [])
    assert syntax_problem(fine) == ""
    assert syntax_problem("x = (1,\n").startswith("line 1, `x = (1,`: ")


def _reply(path: str, text: str) -> str:
    return f"FILE: {path}\n```python\n{text}```\n"


def test_the_reply_reader_writes_the_file_and_says_what_it_took_out():
    plan = Plan(edit=[], spec=[], new=["app/storage.py"], protect=True)
    changes, problems = files_from_reply(_reply("app/storage.py", STORE), plan, {})
    assert set(changes) == {"app/storage.py"}
    ast.parse(changes["app/storage.py"])
    assert "def all(self):" in changes["app/storage.py"]
    assert len(problems) == 1 and "`list of Bookmark`" in problems[0]


def test_a_file_that_does_not_parse_is_refused_with_its_line():
    plan = Plan(edit=["calc.py"], spec=[], new=[], protect=True)
    shown = {"calc.py": "def add(a, b):\n    return a + b\n"}
    reply = _reply("calc.py", "def add(a, b):\n    return a +\n")
    changes, problems = files_from_reply(reply, plan, dict(shown))
    assert changes == {}
    assert problems == [("the new calc.py does not parse as Python (line 2, `return a +`: "
                        "invalid syntax); it was not written")]
