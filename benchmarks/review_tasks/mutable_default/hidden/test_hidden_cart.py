from cart import add_item, cart_size


def test_fresh_cart_each_call():
    assert add_item("apple") == [("apple", 1)]
    assert add_item("pear", 2) == [("pear", 2)]


def test_given_cart_is_appended_and_returned():
    cart = [("pen", 2)]
    result = add_item("ink", 3, cart)
    assert result is cart
    assert cart == [("pen", 2), ("ink", 3)]
    assert cart_size(cart) == 5


def test_empty_given_cart_is_used():
    cart = []
    assert add_item("box", cart=cart) is cart
    assert cart == [("box", 1)]
