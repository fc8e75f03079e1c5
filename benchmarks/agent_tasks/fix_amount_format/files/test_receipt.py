from receipt import format_amount, format_receipt


def test_format_amount():
    assert format_amount(1205) == "12.05"
    assert format_amount(1250) == "12.50"


def test_receipt():
    assert format_receipt([("Coffee", 2, 250), ("Bun", 1, 105)]).splitlines() == [
        "2 x Coffee                5.00",
        "1 x Bun                   1.05",
        "TOTAL                     6.05"]
