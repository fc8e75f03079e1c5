from orders import order_total


def test_totals():
    assert order_total(3, 2.5) == 7.5
    assert order_total(2, 10, discount=0.25) == 15.0
