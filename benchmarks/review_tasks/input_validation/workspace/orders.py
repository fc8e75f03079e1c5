"""Order lines for the shop."""


def order_total(quantity, unit_price, discount=0.0):
    """Price of `quantity` items at `unit_price` each, minus the `discount` fraction,
    rounded to cents."""
    return round(quantity * unit_price * (1 - discount), 2)
