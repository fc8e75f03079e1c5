"""Merging a reply that rewrote only some functions back into the file (jobs/definitions.py)."""

from __future__ import annotations

import ast

from codeloop.jobs.definitions import merge_definitions, top_level_names

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
