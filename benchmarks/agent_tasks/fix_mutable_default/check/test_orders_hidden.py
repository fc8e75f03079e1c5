import pytest
from orders import add_item, new_order, total_quantity


def test_many_orders_are_independent():
    orders = [new_order(f"c{i}") for i in range(3)]
    for i, order in enumerate(orders):
        add_item(order, "x", i + 1)
    assert [total_quantity(o) for o in orders] == [1, 2, 3]
    assert [len(o["items"]) for o in orders] == [1, 1, 1]


def test_fresh_order_after_others_is_empty():
    add_item(new_order("a"), "tea")
    add_item(new_order("b"), "milk", 2)
    order = new_order("c")
    assert order == {"customer": "c", "items": []} and total_quantity(order) == 0


def test_given_items_are_kept():
    order = new_order("d", [{"name": "jam", "qty": 2}])
    add_item(order, "jam")
    add_item(order, "bread")
    assert order["items"] == [{"name": "jam", "qty": 3}, {"name": "bread", "qty": 1}]
    assert new_order("e")["items"] == []


def test_bad_quantity():
    order = new_order("f")
    with pytest.raises(ValueError):
        add_item(order, "x", 0)
    assert order["items"] == [] and new_order("g")["items"] == []
