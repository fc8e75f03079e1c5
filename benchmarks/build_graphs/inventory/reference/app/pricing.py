def line_total(quantity: int, price: float) -> float:
    return round(quantity * price, 2)


def apply_discount(price: float, percent: float) -> float:
    if percent < 0 or percent > 100:
        raise ValueError("percent must be 0-100")
    return round(price * (100 - percent) / 100, 2)
