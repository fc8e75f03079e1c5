"""Receipts for amounts kept in whole cents (ints), never floats."""


def format_amount(cents: int) -> str:
    """cents as money with exactly two decimals: 1205 -> '12.05', 7 -> '0.07', -250 -> '-2.50'."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d}"


def format_line(name: str, qty: int, unit_cents: int) -> str:
    """'2 x Coffee' left, the line total right, 30 characters wide."""
    label = f"{qty} x {name}"
    amount = format_amount(qty * unit_cents)
    return f"{label:<20}{amount:>10}"


def format_receipt(lines: list[tuple[str, int, int]]) -> str:
    body = [format_line(name, qty, unit) for name, qty, unit in lines]
    total = sum(qty * unit for _, qty, unit in lines)
    body.append(f"{'TOTAL':<20}{format_amount(total):>10}")
    return "\n".join(body)
