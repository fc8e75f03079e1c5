"""Stock of a small shop."""


class Inventory:
    def __init__(self) -> None:
        self._stock: dict[str, int] = {}
        self.history: list[tuple[str, str, int]] = []

    def add(self, name: str, qty: int) -> int:
        """Put qty of name in stock; the new count."""
        if qty <= 0:
            raise ValueError("qty must be positive")
        self._stock[name] = self._stock.get(name, 0) + qty
        self.history.append(("add", name, qty))
        return self._stock[name]

    def remove(self, name: str, qty: int) -> int:
        """Take qty of name out of stock; the count left. ValueError when there is not enough.
        An item whose count drops to 0 is no longer listed by names()."""
        if qty <= 0:
            raise ValueError("qty must be positive")
        have = self._stock.get(name, 0)
        if qty > have:
            raise ValueError(f"only {have} of {name} in stock")
        left = have - qty
        if left:
            self._stock[name] = left
        else:
            del self._stock[name]
        self.history.append(("remove", name, qty))
        return left

    def count(self, name: str) -> int:
        return self._stock.get(name, 0)

    def names(self) -> list[str]:
        return sorted(self._stock)

    def total(self) -> int:
        return sum(self._stock.values())
