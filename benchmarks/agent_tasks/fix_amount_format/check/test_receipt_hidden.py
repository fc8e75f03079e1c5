import pytest
from receipt import format_amount, format_line, format_receipt


@pytest.mark.parametrize("cents, text", [
    (0, "0.00"), (7, "0.07"), (10, "0.10"), (99, "0.99"), (100, "1.00"), (123456, "1234.56"),
    (-250, "-2.50"), (-5, "-0.05"), (-100, "-1.00")])
def test_format_amount(cents, text):
    assert format_amount(cents) == text


def test_line_and_empty_receipt():
    assert format_line("Tea", 3, 70) == "3 x Tea                   2.10"
    assert format_receipt([]) == "TOTAL                     0.00"


def test_refund_line():
    assert format_receipt([("Cake", 1, 300), ("Voucher", 1, -350)]).splitlines() == [
        "1 x Cake                  3.00",
        "1 x Voucher              -3.50",
        "TOTAL                    -0.50"]
