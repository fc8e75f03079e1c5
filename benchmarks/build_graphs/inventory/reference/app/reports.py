from app.models import Item
from app.pricing import line_total


def total_value(items: list[Item]) -> float:
    return round(sum(line_total(i.quantity, i.price) for i in items), 2)


def low_stock(items: list[Item], threshold: int) -> list[str]:
    return sorted(i.name for i in items if i.quantity < threshold)
