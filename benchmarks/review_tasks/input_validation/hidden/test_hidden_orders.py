import pytest

from orders import order_total


def test_valid_orders_unchanged():
    assert order_total(3, 2.5) == 7.5
    assert order_total(2, 10, discount=0.25) == 15.0
    assert order_total(1, 0) == 0
    assert order_total(4, 1.99, discount=1) == 0


@pytest.mark.parametrize("quantity", [0, -2, 2.5, True, "3", None])
def test_bad_quantity(quantity):
    with pytest.raises(ValueError):
        order_total(quantity, 1.0)


@pytest.mark.parametrize("price", [-0.01, "9.99", None])
def test_bad_price(price):
    with pytest.raises(ValueError):
        order_total(1, price)


@pytest.mark.parametrize("discount", [-0.1, 1.5, "0.2"])
def test_bad_discount(discount):
    with pytest.raises(ValueError):
        order_total(1, 10.0, discount=discount)
