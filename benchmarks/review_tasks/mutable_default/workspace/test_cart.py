from cart import add_item, cart_size


def test_add_to_given_cart():
    cart = [("pen", 2)]
    assert add_item("ink", 3, cart) == [("pen", 2), ("ink", 3)]
    assert cart_size(cart) == 5
