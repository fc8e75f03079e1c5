"""Promised functions written as methods of a class that never uses its instance are also
given at module level (build/lifted_functions.py): inventory I2 at 48067b3 wrote
`class Pricing` around line_total and apply_discount, and every test errored at import."""

from __future__ import annotations

from written_package import import_written

from codeloop.build.code_mends import mended_code
from codeloop.build.contract import TaskContract
from codeloop.build.lifted_functions import with_promised_functions

# the 1.5B's reply (its imports of the models trimmed)
PRICING = '''from typing import *


class Pricing:
    def line_total(self, quantity: int, price: float) -> float:
        return round(quantity * price, 2)

    def apply_discount(self, price: float, percent: float) -> float:
        if percent < 0 or percent > 100:
            raise ValueError("Discount percentage must be between 0 and 100")
        return round(price * (1 - percent / 100), 2)
'''
PRICING_TASK = TaskContract(task_id="I2", language="python", src_dir="app",
                            test_path="tests/test_pricing.py", modules=["app/pricing.py"],
                            modules_named=True, names=["line_total", "apply_discount"],
                            endpoints=[], serves_http=False, built={}, built_by={}, served=[],
                            models=())


def test_the_methods_become_the_module_functions_the_tests_import(tmp_path, monkeypatch):
    mended, notes = mended_code("app/pricing.py", PRICING, PRICING_TASK, {}.get)
    assert [n.split(":")[1].split(" is ")[0].strip() for n in notes
            if "never uses its instance" in n] == ["apply_discount", "line_total"]
    module = import_written(tmp_path, monkeypatch, {"pricing": mended}, "app.pricing")
    assert module.line_total(3, 1.1) == 3.3
    assert module.apply_discount(200.0, 15) == 170.0
    assert module.Pricing().line_total(2, 2.5) == 5.0  # the class is as it was


def test_a_method_that_reads_its_instance_or_a_name_already_there_is_not_lifted():
    uses_self = ("class Store:\n    def __init__(self):\n        self.items = []\n\n"
                 "    def add(self, item):\n        self.items.append(item)\n")
    assert with_promised_functions("m.py", uses_self, ["add"]) == (uses_self, [])
    defined = PRICING + "\n\ndef line_total(q, p):\n    return q * p\n"
    mended, notes = with_promised_functions("m.py", defined, ["line_total"])
    assert (mended, notes) == (defined, [])
    decorated = "class A:\n    @property\n    def total(self):\n        return 1\n"
    assert with_promised_functions("m.py", decorated, ["total"]) == (decorated, [])
    assert with_promised_functions("m.py", "def (:\n", ["x"]) == ("def (:\n", [])


def test_a_staticmethod_keeps_its_parameters():
    text = "class Maths:\n    @staticmethod\n    def add(a, b):\n        return a + b\n"
    mended, notes = with_promised_functions("m.py", text, ["add"])
    assert mended.endswith("\n\ndef add(a, b):\n    return a + b\n") and len(notes) == 1
