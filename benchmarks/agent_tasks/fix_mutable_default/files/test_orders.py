from orders import add_item, new_order, total_quantity


def test_orders_do_not_share_items():
    first = new_order("ann")
    add_item(first, "apple", 2)
    second = new_order("bob")
    assert second["items"] == []
    assert total_quantity(first) == 2


def test_add_same_item_twice():
    order = add_item(add_item(new_order("cy"), "pear"), "pear", 3)
    assert order["items"] == [{"name": "pear", "qty": 4}]
