"""Merging a reply that rewrote only some functions back into the file (jobs/definitions.py)."""

from __future__ import annotations

import ast

from codeloop.jobs.definitions import merge_definitions, restore_dropped_members, top_level_names

OLD = '''"""Shop helpers."""
import math


def total(items):
    return sum(items)


@staticmethod
def tax(amount):
    return amount * 0.2


class Cart:
    def add(self, item):
        self.items.append(item)
'''


def test_a_function_is_replaced_by_name_and_the_rest_kept():
    merged = merge_definitions(OLD, "def total(items):\n    return math.fsum(items)\n")
    assert "return math.fsum(items)" in merged and "return sum(items)" not in merged
    assert top_level_names(merged) == {"total", "tax", "Cart"}
    assert merged.startswith('"""Shop helpers."""\nimport math\n')


def test_decorators_new_functions_and_new_imports():
    snippet = ("import decimal\nimport math\n\n\ndef tax(amount):\n"
               "    return decimal.Decimal(amount) * 2\n\n\ndef discount(x):\n    return x\n")
    merged = merge_definitions(OLD, snippet)
    ast.parse(merged)
    assert "@staticmethod" not in merged  # the decorated span was replaced whole
    assert merged.count("import math") == 1 and "import decimal\n" in merged
    assert merged.index("import decimal") < merged.index("def total")
    assert merged.rstrip().endswith("def discount(x):\n    return x")


def test_unparseable_or_definition_free_snippets_are_not_merged():
    assert merge_definitions(OLD, "def total(:\n") is None
    assert merge_definitions(OLD, "x = 1\n") is None
    assert merge_definitions("def f(:\n", "def f():\n    pass\n") is None


STOCK = ('class Stock:\n    """Counts."""\n\n    def __init__(self):\n        self.n = {}\n\n'
         '    def remove(self, name):\n        return self.n[name] - 1\n\n'
         '    def count(self, name):\n        return self.n.get(name, 0)\n\n\n'
         'def helper():\n    return 1\n')


def test_a_class_sent_with_some_of_its_methods_gets_the_others_back():
    reply = ('class Stock:\n    """Counts."""\n\n    def __init__(self):\n        self.n = {}\n\n'
             '    def remove(self, name):\n        self.n[name] -= 1\n        return self.n[name]\n')
    merged = restore_dropped_members(STOCK, reply)
    assert merged == reply + ('\n    def count(self, name):\n        return self.n.get(name, 0)\n')


def test_restored_methods_take_the_replys_indentation():
    reply = 'class Stock:\n  def remove(self, name):\n    return 0\n'
    merged = restore_dropped_members(STOCK, reply)
    # The method's own lines keep their depth under it.
    assert "\n  def count(self, name):\n      return self.n.get(name, 0)\n" in merged
    assert "\n  def __init__(self):\n      self.n = {}\n" in merged
    compile(merged, "stock.py", "exec")


def test_a_class_with_as_many_methods_is_taken_as_it_is():
    renamed = STOCK.replace("def count(", "def how_many(")
    assert restore_dropped_members(STOCK, renamed) == renamed
    grown = STOCK.replace("\n\n\ndef helper", "\n\n    def total(self):\n        return 0\n\n\ndef helper")
    assert restore_dropped_members(STOCK, grown) == grown


def test_nothing_changes_when_either_side_does_not_parse():
    assert restore_dropped_members("class Stock(:\n", "class Stock:\n    pass\n") == \
        "class Stock:\n    pass\n"
    assert restore_dropped_members(STOCK, "class Stock(:\n") == "class Stock(:\n"
