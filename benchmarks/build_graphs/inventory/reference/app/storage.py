from app.models import Item, ItemIn


class OutOfStock(Exception):
    pass


class Inventory:
    def __init__(self) -> None:
        self._items: dict[int, Item] = {}
        self._next = 1

    def add(self, data: ItemIn) -> Item:
        item = Item(id=self._next, **data.model_dump())
        self._items[item.id] = item
        self._next += 1
        return item

    def get(self, item_id: int) -> Item | None:
        return self._items.get(item_id)

    def all(self) -> list[Item]:
        return list(self._items.values())

    def restock(self, item_id: int, amount: int) -> Item:
        item = self._items[item_id]
        self._items[item_id] = item.model_copy(update={"quantity": item.quantity + amount})
        return self._items[item_id]

    def take(self, item_id: int, amount: int) -> Item:
        item = self._items[item_id]
        if amount > item.quantity:
            raise OutOfStock(f"only {item.quantity} left")
        self._items[item_id] = item.model_copy(update={"quantity": item.quantity - amount})
        return self._items[item_id]
