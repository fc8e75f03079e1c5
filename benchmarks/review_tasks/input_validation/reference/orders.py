"""Order lines for the shop."""


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def order_total(quantity, unit_price, discount=0.0):
    """Price of `quantity` items at `unit_price` each, minus the `discount` fraction,
    rounded to cents."""
    if not isinstance(quantity, int) or isinstance(quantity, bool) or quantity <= 0:
        raise ValueError(f"quantity must be a positive int, got {quantity!r}")
    if not _is_number(unit_price) or unit_price < 0:
        raise ValueError(f"unit_price must be a non-negative number, got {unit_price!r}")
    if not _is_number(discount) or not 0 <= discount <= 1:
        raise ValueError(f"discount must be a number from 0 to 1, got {discount!r}")
    return round(quantity * unit_price * (1 - discount), 2)
