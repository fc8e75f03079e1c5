"""An exception class the task promises, raised by its module and never defined, is
defined by the harness (undefined_exceptions.py): the 1.5B's inventory I3 wrote
`raise OutOfStock` and no class, and its tests' import of it failed at collection."""

from __future__ import annotations

import ast

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.undefined_exceptions import defined_exceptions

STORAGE = '''"""Stock."""
from app.models import Item


class Inventory:
    def take(self, amount):
        try:
            if amount > 3:
                raise OutOfStock
        except (KeyError, StockGone):
            raise HTTPException(404)
        return Item()
'''


def test_the_promised_exceptions_are_defined_after_the_imports_in_their_order():
    mended, notes = defined_exceptions("app/storage.py", STORAGE,
                                       ["Inventory", "OutOfStock", "StockGone"])
    tree = ast.parse(mended)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert classes == ["OutOfStock", "StockGone", "Inventory"]
    assert all(ast.unparse(n.bases[0]) == "Exception"
               for n in tree.body if isinstance(n, ast.ClassDef) and n.name != "Inventory")
    assert mended.startswith('"""Stock."""\nfrom app.models import Item\n\n\nclass OutOfStock')
    assert "HTTPException(Exception)" not in mended  # a library's, not the task's
    assert notes == [
        ("app/storage.py: OutOfStock is raised but was never defined: the harness added "
        "`class OutOfStock(Exception)` to it"),
        ("app/storage.py: StockGone is raised but was never defined: the harness added "
        "`class StockGone(Exception)` to it")]


def test_defined_imported_builtin_and_star_imported_names_are_left_alone():
    defined = STORAGE + "\n\nclass OutOfStock(Exception):\n    pass\n"
    assert defined_exceptions("app/storage.py", defined, ["OutOfStock"])[1] == []
    imported = "from app.errors import OutOfStock\n" + STORAGE
    assert defined_exceptions("app/storage.py", imported, ["OutOfStock"])[1] == []
    star = "from app.errors import *\n" + STORAGE
    assert defined_exceptions("app/storage.py", star, ["OutOfStock"]) == (star, [])
    builtin = "def f():\n    raise KeyError(1)\n"
    assert defined_exceptions("app/x.py", builtin, ["KeyError"]) == (builtin, [])
    assert defined_exceptions("app/x.py", "def (:\n", ["OutOfStock"]) == ("def (:\n", [])


def test_a_task_whose_code_forgot_its_exception_class_is_built(build):
    request = {"tech_stack": "python-api", "tasks": [
        {"id": "A", "description": "class Shelf and exception class Empty in app.shelf: "
                                   "Shelf().pop() raises Empty", "depends_on": []}]}
    tests = ("import pytest\n\nfrom app.shelf import Empty, Shelf\n\n\n"
             "def test_pop():\n    with pytest.raises(Empty):\n        Shelf().pop()\n")
    code = "class Shelf:\n    def pop(self):\n        raise Empty()\n"
    agents = {"task:A": [reply_with_tests(tests), file_reply(("app/shelf.py", code))],
              "integration": no_wiring()}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert "class Empty(Exception):" in (built.out / "app" / "shelf.py").read_text()
