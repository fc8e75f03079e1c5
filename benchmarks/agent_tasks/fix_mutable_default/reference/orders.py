"""Orders as plain dicts: {"customer": str, "items": [{"name": str, "qty": int}]}."""


def new_order(customer: str, items: list | None = None) -> dict:
    """A new order, with the given items or none."""
    order = {"customer": customer, "items": [] if items is None else items}
    return order


def add_item(order: dict, name: str, qty: int = 1) -> dict:
    if qty < 1:
        raise ValueError("qty must be at least 1")
    for item in order["items"]:
        if item["name"] == name:
            item["qty"] += qty
            return order
    order["items"].append({"name": name, "qty": qty})
    return order


def total_quantity(order: dict) -> int:
    return sum(item["qty"] for item in order["items"])
